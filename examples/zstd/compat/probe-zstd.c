/* zstd-demo's probe: the build can compile against zstd.h and link libzstd's one-shot
   compressor, which the `zstd` provider calls. Compiled and linked, never run. */
#include <stddef.h>
#include <zstd.h>

int main(void) {
    char out[64];
    size_t n = ZSTD_compress(out, sizeof out, "probe", 5, 1);
    return ZSTD_isError(n) ? 1 : 0;
}
