/* zstd-demo's C shim, compiled by build.rs with the `cc` crate against the include directories
   the probe found: what zstd.h says only as a macro, which an `extern` block cannot reach. */
#include <zstd.h>

/* The version of the zstd.h this build compiled against ("1.5.4"). */
const char *zstd_demo_headers_version(void) {
    return ZSTD_VERSION_STRING;
}
