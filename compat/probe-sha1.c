/* flagsplit build probe: is libcrypto's low-level SHA-1 there, and is SHA_CTX the structure
 * flagsplit-openssl-hash declares?  Compiled and linked (not run) by
 * build.rs with the `cc` crate's compiler, like autoconf's AC_CHECK_LIB([crypto], [SHA1_Init]). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

/* flagsplit-openssl-hash's SHA_CTX: 96 bytes of 32-bit words, as in OpenSSL 1.1.1 to 3.x. */
_Static_assert(sizeof(SHA_CTX) == 96, "SHA_CTX is not the 96 bytes flagsplit-openssl-hash declares");
_Static_assert(_Alignof(SHA_CTX) == _Alignof(unsigned int), "SHA_CTX is not aligned as flagsplit-openssl-hash declares");

int main(void)
{
	SHA_CTX c;
	unsigned char md[SHA_DIGEST_LENGTH];
	SHA1_Init(&c);
	SHA1_Update(&c, "abc", 3);
	SHA1_Final(md, &c);
	return md[0] != 0xa9;
}
