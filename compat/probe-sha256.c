/* flagsplit build probe: is libcrypto's low-level SHA-256 there?  Compiled and linked (not run) by
 * the build script with the `cc` crate's compiler, like autoconf's AC_CHECK_LIB([crypto], [SHA256_Init]). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

int main(void)
{
	SHA256_CTX c;
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_Init(&c);
	SHA256_Update(&c, "abc", 3);
	SHA256_Final(md, &c);
	return md[0] != 0xba;
}
