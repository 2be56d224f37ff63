/* flagsplit build probe: is libcrypto's low-level SHA-1 there?  Compiled and linked (not run) by
 * build.rs with the `cc` crate's compiler, like autoconf's AC_CHECK_LIB([crypto], [SHA1_Init]). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

int main(void)
{
	SHA_CTX c;
	unsigned char md[SHA_DIGEST_LENGTH];
	SHA1_Init(&c);
	SHA1_Update(&c, "abc", 3);
	SHA1_Final(md, &c);
	return md[0] != 0xa9;
}
