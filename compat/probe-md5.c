/* flagsplit build probe: is libcrypto's low-level MD5 there, and is MD5_CTX the structure
 * flagsplit-openssl-hash declares?  Compiled and linked (not run) by the build script with the `cc`
 * crate's compiler, like autoconf's AC_CHECK_LIB([crypto], [MD5_Init]). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md5.h>

/* flagsplit-openssl-hash's MD5_CTX: 92 bytes of 32-bit words, as in OpenSSL 1.1.1 to 3.x. */
_Static_assert(sizeof(MD5_CTX) == 92, "MD5_CTX is not the 92 bytes flagsplit-openssl-hash declares");
_Static_assert(_Alignof(MD5_CTX) == _Alignof(unsigned int), "MD5_CTX is not aligned as flagsplit-openssl-hash declares");

int main(void)
{
	MD5_CTX c;
	unsigned char md[MD5_DIGEST_LENGTH];
	MD5_Init(&c);
	MD5_Update(&c, "abc", 3);
	MD5_Final(md, &c);
	return md[0] != 0x90;
}
