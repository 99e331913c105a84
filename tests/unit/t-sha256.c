/* t-sha256.c - SHA-256 against the FIPS 180-2 / NIST example vectors, plus the padding edges. */
#include "base.h"
#include "tap.h"

#include <stdlib.h>

static const char *hex(const void *data, size_t len)
{
	static char out[65];
	rag_sha256_hex(data, len, out);
	return out;
}

int main(void)
{
	/* Messages whose padding ends in one block or spills into a second one, and lengths that
	 * straddle the 64-byte block; expected values from coreutils sha256sum. */
	static const struct { size_t n; const char *want; } edge[] = {
		{ 55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072" },
		{ 56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e" },
		{ 63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2" },
		{ 64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c" },
		{ 65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9" },
		{ 119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c" },
		{ 120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98" },
		{ 127, "70156a14adbabf98cff3a71c7084b417abf057a8efd27329ca36b7202c87d81f" },
		{ 128, "24da1b81d0b16df6428eee73c69fcb2a93c76bc6df706f0c6670fe6bfe800464" },
	};
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	                   "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	unsigned char raw[32];
	char buf[128], *million;
	size_t i;

	is_str(hex("abc", 3),
	       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "\"abc\"");
	is_str(hex("", 0),
	       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty message");
	is_str(hex(NULL, 0),
	       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "NULL, 0");
	is_str(hex(m448, strlen(m448)),
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "448-bit message");
	is_str(hex(m896, strlen(m896)),
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1", "896-bit message");

	million = malloc(1000000);
	memset(million, 'a', 1000000);
	is_str(hex(million, 1000000),
	       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "one million 'a'");
	free(million);

	memset(buf, 'x', sizeof buf);
	for (i = 0; i < sizeof edge / sizeof edge[0]; i++)
		is_str(hex(buf, edge[i].n), edge[i].want, "%zu bytes of 'x'", edge[i].n);

	rag_sha256("abc", 3, raw);
	ok(raw[0] == 0xba && raw[1] == 0x78 && raw[31] == 0xad, "raw digest bytes, big-endian words");
	return done_testing();
}
