/* The `openssl` provider's probe: the build can compile against openssl/ssl.h and link a TLS
   client context (libssl, and libcrypto under it). Compiled and linked, never run. */
#include <openssl/ssl.h>

int main(void) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_free(ctx);
    return ctx == NULL;
}
