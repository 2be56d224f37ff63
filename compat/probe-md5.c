/* flagsplit build probe: is libcrypto's low-level MD5 there, and does MD5_CTX fit the 128 bytes,
 * 8-byte aligned, that flagsplit-openssl-hash reserves for it? */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md5.h>

_Static_assert(sizeof(MD5_CTX) <= 128, "MD5_CTX larger than flagsplit's 128-byte buffer");
_Static_assert(_Alignof(MD5_CTX) <= 8, "MD5_CTX more aligned than flagsplit's buffer");

int main(void)
{
	MD5_CTX c;
	unsigned char md[MD5_DIGEST_LENGTH];
	MD5_Init(&c);
	MD5_Update(&c, "abc", 3);
	MD5_Final(md, &c);
	return md[0] != 0x90;
}
