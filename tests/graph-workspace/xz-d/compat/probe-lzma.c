/* xz-d's probe: the build can compile against lzma.h and link liblzma's one-shot decoder, which
   the `liblzma` provider calls. Compiled and linked, never run. */
#include <stddef.h>
#include <stdint.h>
#include <lzma.h>

int main(void) {
    uint64_t memlimit = UINT64_MAX;
    size_t in_pos = 0, out_pos = 0;
    uint8_t out[16];
    lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, (const uint8_t *)"", &in_pos, 0, out, &out_pos, sizeof out);
    return r == LZMA_OK ? 0 : 1;
}
