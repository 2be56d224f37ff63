//! Every compiled hashing provider side by side (criterion).
//!
//! Groups, each comparing the providers this feature set compiles (`dc`, `block` and, with
//! `--features openssl-sha1`, `openssl` for SHA-1; `builtin` and, with `--features openssl-md5`,
//! `openssl` for MD5):
//!
//! - `sha1/64B`, `sha1/1KiB`, `sha1/64KiB`, `sha1/16MiB` (and the same for `md5/`): throughput of
//!   `update` with inputs of that size into a long-lived hasher (`Throughput::Bytes`);
//! - `sha1/one-64B-message`, `md5/one-64B-message`: the whole life of a hasher for one 64-byte
//!   message, `new` + `update` + `finalize`.
//!
//! `cargo bench --bench providers [--features openssl-sha1,openssl-md5] [-- FILTER]` takes about
//! two minutes with every provider; `benches/ratios.rs` prints the comparison as a table.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use flagsplit::hash::md5::{Md5Provider, Md5Visitor, for_each_md5_provider};
use flagsplit::hash::sha1::{Sha1Provider, Sha1Visitor, for_each_sha1_provider};

/// Input sizes of the throughput groups, with their labels.
const SIZES: [(usize, &str); 4] = [
    (64, "64B"),
    (1024, "1KiB"),
    (64 * 1024, "64KiB"),
    (16 * 1024 * 1024, "16MiB"),
];

/// Sample counts and times per input size, so that the whole run stays at a couple of minutes.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, len: usize) {
    if len >= 1024 * 1024 {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
    } else {
        group
            .sample_size(40)
            .warm_up_time(Duration::from_millis(700))
            .measurement_time(Duration::from_secs(2));
    }
}

/// Benchmarks `update` of `data` into a long-lived hasher, per provider.
struct Stream<'g, 'c, 'd> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    data: &'d [u8],
}

impl Sha1Visitor for Stream<'_, '_, '_> {
    fn visit<P: Sha1Provider>(&mut self) {
        let data = self.data;
        self.group.bench_function(P::PROVIDER, |b| {
            let mut h = P::new();
            b.iter(|| h.update(black_box(data)));
            black_box(h.finalize().is_ok());
        });
    }
}

impl Md5Visitor for Stream<'_, '_, '_> {
    fn visit<P: Md5Provider>(&mut self) {
        let data = self.data;
        self.group.bench_function(P::PROVIDER, |b| {
            let mut h = P::new();
            b.iter(|| h.update(black_box(data)));
            black_box(h.finalize());
        });
    }
}

/// Benchmarks new + update + finalize of one 64-byte message, per provider.
struct OneMessage<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    message: [u8; 64],
}

impl Sha1Visitor for OneMessage<'_, '_> {
    fn visit<P: Sha1Provider>(&mut self) {
        let message = self.message;
        self.group.bench_function(P::PROVIDER, |b| {
            b.iter(|| {
                let mut h = P::new();
                h.update(black_box(&message[..]));
                h.finalize()
            });
        });
    }
}

impl Md5Visitor for OneMessage<'_, '_> {
    fn visit<P: Md5Provider>(&mut self) {
        let message = self.message;
        self.group.bench_function(P::PROVIDER, |b| {
            b.iter(|| {
                let mut h = P::new();
                h.update(black_box(&message[..]));
                h.finalize()
            });
        });
    }
}

fn message() -> [u8; 64] {
    let mut m = [0u8; 64];
    m.copy_from_slice(&flagsplit::bench::input(64));
    m
}

fn sha1(c: &mut Criterion) {
    for (len, label) in SIZES {
        let data = flagsplit::bench::input(len);
        let mut group = c.benchmark_group(format!("sha1/{label}"));
        configure(&mut group, len);
        group.throughput(Throughput::Bytes(len as u64));
        for_each_sha1_provider(&mut Stream {
            group: &mut group,
            data: &data,
        });
        group.finish();
    }
    let mut group = c.benchmark_group("sha1/one-64B-message");
    configure(&mut group, 64);
    group.throughput(Throughput::Bytes(64));
    for_each_sha1_provider(&mut OneMessage {
        group: &mut group,
        message: message(),
    });
    group.finish();
}

fn md5(c: &mut Criterion) {
    for (len, label) in SIZES {
        let data = flagsplit::bench::input(len);
        let mut group = c.benchmark_group(format!("md5/{label}"));
        configure(&mut group, len);
        group.throughput(Throughput::Bytes(len as u64));
        for_each_md5_provider(&mut Stream {
            group: &mut group,
            data: &data,
        });
        group.finish();
    }
    let mut group = c.benchmark_group("md5/one-64B-message");
    configure(&mut group, 64);
    group.throughput(Throughput::Bytes(64));
    for_each_md5_provider(&mut OneMessage {
        group: &mut group,
        message: message(),
    });
    group.finish();
}

criterion_group!(providers, sha1, md5);
criterion_main!(providers);
