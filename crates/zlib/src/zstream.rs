//! The provider type for a C library with zlib's `z_stream` interface (the system libz through
//! libz-sys, zlib-ng's native API through libz-ng-sys): one macro, so that both drive their
//! library by the same code and differ only in their names.

/// Defines provider type `$name` over the `z_stream` of crate `$sys`, initialised by
/// `$init(strm)` (inflateInit2 with 15 window bits: zlib format, 32 KiB window), with
/// `$sys::inflate`, `inflateReset` and `inflateEnd`, and `$version()` for [`Inflater::version`].
///
/// Everything that calls the library is `#[inline]` (as is each provider's `$init`), so it is
/// compiled only into the crate that names the provider: GNU ld puts a library in NEEDED for any
/// object file it pulls in that mentions it, and this crate's object files are pulled in for the
/// selected provider too, so a compiled but unselected provider would otherwise add its library.
macro_rules! z_stream_provider {
    (
        $(#[$doc:meta])*
        $name:ident, $provider:literal, $sys:ident, $init:path, $version:path
    ) => {
        $(#[$doc])*
        pub struct $name {
            /// Boxed: the library records the stream's address at initialisation and refuses a
            /// stream that moved.
            strm: Box<$sys::z_stream>,
            /// Something was fed since the last reset.
            used: bool,
            /// An error found by a call that also wrote output, for the next call.
            pending: Option<$crate::Error>,
        }

        unsafe extern "C" fn zalloc(
            _opaque: $sys::voidpf,
            items: $sys::uInt,
            size: $sys::uInt,
        ) -> $sys::voidpf {
            // SAFETY: calloc accepts any sizes (it checks the product for overflow) and returns
            // null when it cannot allocate, which the library reports as Z_MEM_ERROR.
            unsafe { libc::calloc(items as usize, size as usize) }
        }

        unsafe extern "C" fn zfree(_opaque: $sys::voidpf, address: $sys::voidpf) {
            // SAFETY: the library frees only what zalloc returned, once.
            unsafe { libc::free(address) }
        }

        impl $crate::Inflater for $name {
            const PROVIDER: &'static str = $provider;

            #[inline]
            fn version() -> String {
                // SAFETY: the version function returns a pointer to a static NUL-terminated
                // string.
                let version = unsafe { std::ffi::CStr::from_ptr($version()) };
                version.to_string_lossy().into_owned()
            }

            #[inline]
            fn new() -> Result<Self, $crate::Error> {
                let mut strm = Box::new($sys::z_stream {
                    next_in: std::ptr::null_mut(),
                    avail_in: 0,
                    total_in: 0,
                    next_out: std::ptr::null_mut(),
                    avail_out: 0,
                    total_out: 0,
                    msg: std::ptr::null_mut(),
                    state: std::ptr::null_mut(),
                    zalloc,
                    zfree,
                    opaque: std::ptr::null_mut(),
                    data_type: 0,
                    adler: 0,
                    reserved: 0,
                });
                // SAFETY: `strm` is a valid z_stream with allocator hooks and no input yet, at
                // the address it keeps (boxed).
                let ret = unsafe { $init(&mut *strm) };
                if ret != $sys::Z_OK {
                    return Err($crate::Error::Library {
                        provider: $provider,
                        detail: format!("inflateInit2 failed ({ret})"),
                    });
                }
                Ok($name {
                    strm,
                    used: false,
                    pending: None,
                })
            }

            #[inline]
            fn reset(&mut self) {
                if self.used {
                    // SAFETY: the stream was initialised by `new` and not ended. inflateReset
                    // fails only for a stream that was not initialised.
                    let ret = unsafe { $sys::inflateReset(&mut *self.strm) };
                    debug_assert_eq!(ret, $sys::Z_OK);
                    self.used = false;
                    self.pending = None;
                }
            }

            #[inline]
            fn inflate(
                &mut self,
                input: &[u8],
                output: &mut [u8],
            ) -> Result<$crate::Step, $crate::Error> {
                self.used = true;
                if let Some(e) = self.pending.take() {
                    return Err(e);
                }
                // The counts are C `unsigned int`s: a longer buffer is taken in parts.
                let in_len = input.len().min($sys::uInt::MAX as usize);
                let out_len = output.len().min($sys::uInt::MAX as usize);
                let s = &mut *self.strm;
                // The library only reads through next_in (zlib's `z_const` is off by default).
                s.next_in = input.as_ptr().cast_mut();
                s.avail_in = in_len as $sys::uInt;
                s.next_out = output.as_mut_ptr();
                s.avail_out = out_len as $sys::uInt;
                // SAFETY: next_in/avail_in describe readable bytes of `input`, next_out/avail_out
                // writable bytes of `output`, both borrowed for the call; the stream was
                // initialised by `new` and not ended.
                let ret = unsafe { $sys::inflate(s, $sys::Z_NO_FLUSH) };
                let step = $crate::Step {
                    consumed: in_len - s.avail_in as usize,
                    written: out_len - s.avail_out as usize,
                    end: ret == $sys::Z_STREAM_END,
                };
                // Leave no pointers into the caller's buffers behind.
                s.next_in = std::ptr::null_mut();
                s.avail_in = 0;
                s.next_out = std::ptr::null_mut();
                s.avail_out = 0;
                let error = match ret {
                    $sys::Z_OK | $sys::Z_STREAM_END | $sys::Z_BUF_ERROR => return Ok(step),
                    $sys::Z_NEED_DICT => $crate::Error::Corrupt {
                        provider: $provider,
                        detail: "needs a preset dictionary".to_owned(),
                    },
                    $sys::Z_DATA_ERROR => $crate::Error::Corrupt {
                        provider: $provider,
                        detail: self.message(ret),
                    },
                    _ => $crate::Error::Library {
                        provider: $provider,
                        detail: self.message(ret),
                    },
                };
                $crate::deliver_then_fail(step, error, &mut self.pending)
            }
        }

        impl $name {
            /// The library's message for the last call, else its return code.
            #[inline]
            fn message(&self, ret: std::os::raw::c_int) -> String {
                if self.strm.msg.is_null() {
                    format!("error {ret}")
                } else {
                    // SAFETY: the library sets msg to a static NUL-terminated string.
                    unsafe { std::ffi::CStr::from_ptr(self.strm.msg) }
                        .to_string_lossy()
                        .into_owned()
                }
            }
        }

        impl Drop for $name {
            #[inline]
            fn drop(&mut self) {
                // SAFETY: the stream was initialised by `new` and is ended only here.
                unsafe { $sys::inflateEnd(&mut *self.strm) };
            }
        }
    };
}

pub(crate) use z_stream_provider;
