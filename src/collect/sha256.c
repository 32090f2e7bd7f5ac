/* SHA-256 of a file or a buffer through Nettle (Debian's nettle-dev; the
 * hash of the binary_sha256 metadata of collected profiles and of campaign
 * digests), and the GNU build-id of an ELF file through libelf (the
 * binary_build_id metadata: the identity perf uses for binaries). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <nettle/sha2.h>
#include "collect/sha256.h"
#include "x/x.h"

int pmcfi_sha256_file(const char *path, char hex[65])
{
	static __thread uint8_t buf[65536];
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		sha256_update(&ctx, (size_t)n, buf);
	}
	close(fd);
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&ctx, sizeof(d), d);
	pmcfi_hex(d, sizeof(d), hex);
	return 0;
}

int pmcfi_build_id_file(const char *path, char *hex, size_t len)
{
	hex[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = -ENOENT;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	while (e && rc == -ENOENT && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && rc == -ENOENT && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz > 0 &&
			    2 * (size_t)nh.n_descsz < len) {
				pmcfi_hex((const uint8_t *)d->d_buf + desc_off, nh.n_descsz, hex);
				rc = 0;
			}
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
