/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * What every fuzzer of test/fuzz shares: a property the code under test
 * broke aborts with one line (libFuzzer keeps the input as a crash), and the
 * fuzz input as a NUL-terminated string.
 */

#ifndef NET_MANA_FUZZ_H
#define NET_MANA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: property broken: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* The input as a C string of exactly its size (ASan sees a read past the NUL). */
static inline char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* True when s holds a NUL within its size bytes. */
static inline int
fuzz_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* NET_MANA_FUZZ_H */
