#![doc = include_str!("../GUIDE.md")]
