/* flagsplit build probe: is libcrypto's low-level SHA-256 there, and is SHA256_CTX the structure
 * flagsplit-openssl-hash declares?  Compiled and linked (not run) by
 * the build script with the `cc` crate's compiler, like autoconf's AC_CHECK_LIB([crypto], [SHA256_Init]). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

/* flagsplit-openssl-hash's SHA256_CTX: 112 bytes of 32-bit words, as in OpenSSL 1.1.1 to 3.x. */
_Static_assert(sizeof(SHA256_CTX) == 112, "SHA256_CTX is not the 112 bytes flagsplit-openssl-hash declares");
_Static_assert(_Alignof(SHA256_CTX) == _Alignof(unsigned int), "SHA256_CTX is not aligned as flagsplit-openssl-hash declares");

int main(void)
{
	SHA256_CTX c;
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_Init(&c);
	SHA256_Update(&c, "abc", 3);
	SHA256_Final(md, &c);
	return md[0] != 0xba;
}
