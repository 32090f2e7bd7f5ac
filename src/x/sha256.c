/* SHA-256 of a buffer through Nettle and bytes as hex, for the library and
 * the command (compiled into both, never exported: x/x.h). */
#include <stdint.h>
#include <nettle/sha2.h>
#include "x/x.h"

void pmcfi_hex(const unsigned char *d, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * n] = '\0';
}

void pmcfi_sha256_buf(const void *data, size_t n, char hex[65])
{
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, n, data);
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&ctx, sizeof(d), d);
	pmcfi_hex(d, sizeof(d), hex);
}
