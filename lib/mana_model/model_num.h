/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The one rule for every integer of the software device's settings and wire
 * specs (model_settings.c): decimal without a leading zero ("0" itself is
 * fine) or 0x/0X hex; a '-' before a decimal only where the range has
 * negative values; no blanks, no '+', no octal. Out of range is -ERANGE,
 * anything else -EINVAL with *why (if why is not NULL) saying the rule.
 * MACs, in the settings and the generator's dmac, likewise have one parser.
 */

#ifndef MANA_MODEL_NUM_H
#define MANA_MODEL_NUM_H

#include <stdint.h>

#define MM_NUM_RULE	"integers are decimal without a leading 0, or 0x hex; no blanks or '+'"

int mm_parse_u64(const char *s, uint64_t max, uint64_t *out, const char **why);
int mm_parse_long(const char *s, long min, long max, long *out, const char **why);
/* xx<sep>xx<sep>...: six bytes, two hex digits each, one separator of seps; 0 or -EINVAL. */
int mm_parse_mac(const char *s, const char *seps, uint8_t mac[6]);

#endif /* MANA_MODEL_NUM_H */
