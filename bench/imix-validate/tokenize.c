/* A tokenizer over generated C-like text: identifiers, numbers, operators,
 * whitespace; counts token classes and hashes identifiers.  Written for
 * bench/imix-validate only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	char *buf = malloc((size_t)n + 1);
	static const char *frag[] = {"int ",     "x1 ",    "= ",    "foo(",  "42",      ");\n",
				     "while ",   "(a<b) ", "{ ",    "} ",    "return ", "3.14 ",
				     "bar_baz ", "+= ",    "0x1f ", "// c\n"};
	unsigned r = 7;
	long k = 0;
	while (k < n) {
		r = r * 1664525u + 1013904223u;
		const char *f = frag[r >> 28];
		size_t l = strlen(f);
		if (k + (long)l > n)
			break;
		memcpy(buf + k, f, l);
		k += (long)l;
	}
	buf[k] = 0;
	long cnt[5] = {0};
	unsigned hid = 0;
	for (const char *p = buf; *p;) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			unsigned h = 5381;
			while (isalnum((unsigned char)*p) || *p == '_')
				h = h * 33 + (unsigned char)*p++;
			hid ^= h;
			cnt[0]++;
		} else if (isdigit((unsigned char)*p)) {
			while (isxdigit((unsigned char)*p) || *p == 'x' || *p == '.')
				p++;
			cnt[1]++;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
			cnt[2]++;
		} else if (strchr("+-*/=<>", *p) && p[1] == '=') {
			p += 2;
			cnt[3]++;
		} else {
			p++;
			cnt[4]++;
		}
	}
	printf("%ld %ld %ld %ld %ld %u\n", cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], hid);
	return 0;
}
