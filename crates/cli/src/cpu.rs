//! CPU facts detected at run time (reported by `version --build-options` and `bench`).

/// The instruction-set extensions that matter to the hashing providers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuFeatures {
    /// SHA-NI (x86) or the ARMv8 SHA-1/SHA-2 instructions: used by `block` and `dc`.
    pub sha: bool,
    /// AVX2: used by `dc`'s collision filter.
    pub avx2: bool,
}

impl CpuFeatures {
    /// Detects the features of the CPU this process runs on.
    pub fn detect() -> CpuFeatures {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            CpuFeatures {
                sha: std::arch::is_x86_feature_detected!("sha")
                    && std::arch::is_x86_feature_detected!("sse4.1"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            CpuFeatures {
                sha: std::arch::is_aarch64_feature_detected!("sha2"),
                avx2: false,
            }
        }
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
        {
            CpuFeatures {
                sha: false,
                avx2: false,
            }
        }
    }

    /// The `cpu:` line's value: architecture and the detected facts.
    pub fn describe(self) -> String {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let sha = if cfg!(target_arch = "aarch64") {
            "sha2"
        } else {
            "sha-ni"
        };
        format!(
            "{} ({sha}: {}, avx2: {})",
            std::env::consts::ARCH,
            yes_no(self.sha),
            yes_no(self.avx2)
        )
    }
}
