/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Wire specs (lib/mana_model/model_wire_parse.c, mana_model_parse_wire):
 * the input is one spec. Properties: the result is 0 or -EINVAL; an error
 * names why and leaves cfg untouched; an accepted spec gives a config
 * within the documented ranges (doc/user_guide.md, "Wires"), the same
 * config when parsed again, and the same result through the settings
 * parser's wire= key.
 */

#include <errno.h>
#include <string.h>

#include "mana_model.h"
#include "fuzz.h"

static void
check_accepted(const struct mana_model_wire_cfg *c)
{
	switch (c->type) {
	case MANA_MODEL_WIRE_NONE:
	case MANA_MODEL_WIRE_LOOP:
		break;
	case MANA_MODEL_WIRE_PAIR:
		FUZZ_CHECK(c->pair.port < MANA_MODEL_MAX_PORTS, "pair port %u", c->pair.port);
		FUZZ_CHECK(fuzz_terminated(c->pair.dev, sizeof(c->pair.dev)), "pair dev");
		break;
	case MANA_MODEL_WIRE_GEN:
		FUZZ_CHECK(c->gen.flows >= 1 && c->gen.flows <= 65536, "flows %u", c->gen.flows);
		FUZZ_CHECK(c->gen.frame_len >= 60 && c->gen.frame_len <= MANA_MODEL_MAX_FRAME,
			   "len %u", c->gen.frame_len);
		FUZZ_CHECK(c->gen.rate_pps <= 1000000000ull, "rate");
		FUZZ_CHECK(c->gen.vlan || c->gen.vlan_tci == 0, "tci without vlan");
		break;
	case MANA_MODEL_WIRE_PCAP:
		FUZZ_CHECK(fuzz_terminated(c->pcap.rx, sizeof(c->pcap.rx)) &&
			   fuzz_terminated(c->pcap.tx, sizeof(c->pcap.tx)), "pcap names");
		FUZZ_CHECK(c->pcap.rx[0] != '\0' || c->pcap.tx[0] != '\0', "pcap without files");
		FUZZ_CHECK(!c->pcap.loop_file || c->pcap.rx[0] != '\0', "loop without rx");
		FUZZ_CHECK(strchr(c->pcap.rx, ':') == NULL && strchr(c->pcap.tx, ':') == NULL,
			   "':' in a file name");
		break;
	case MANA_MODEL_WIRE_TAP:
		FUZZ_CHECK(c->tap.ifname[0] != '\0' &&
			   fuzz_terminated(c->tap.ifname, sizeof(c->tap.ifname)), "ifname");
		FUZZ_CHECK(strpbrk(c->tap.ifname, "/: \t") == NULL, "ifname chars");
		break;
	default:
		FUZZ_CHECK(0, "unknown type %d accepted", (int)c->type);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mana_model_wire_cfg cfg, again, before;
	struct mana_model_settings st;
	char *spec = fuzz_strndup(data, size);
	const char *why = "unset";
	int ret, ret2;

	memset(&cfg, 0xA5, sizeof(cfg));
	before = cfg;
	ret = mana_model_parse_wire(spec, &cfg, &why);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "ret %d", ret);
	if (ret != 0) {
		FUZZ_CHECK(why != NULL && why[0] != '\0', "error without a reason");
		FUZZ_CHECK(memcmp(&cfg, &before, sizeof(cfg)) == 0, "cfg changed on error");
	} else {
		FUZZ_CHECK(why == NULL, "reason on success: %s", why);
		check_accepted(&cfg);
		memset(&again, 0, sizeof(again));
		FUZZ_CHECK(mana_model_parse_wire(spec, &again, NULL) == 0, "second parse");
		FUZZ_CHECK(memcmp(&cfg, &again, sizeof(cfg)) == 0, "second parse differs");
	}
	/* The same spec through the settings key the devargs and MANA_MODEL use. */
	mana_model_settings_init(&st, "fuzz", MANA_MODEL_SETTINGS_DEVICE, "fuzz");
	ret2 = mana_model_settings_set(&st, "wire", spec);
	FUZZ_CHECK(fuzz_terminated(st.msg, sizeof(st.msg)), "settings msg");
	if (strlen(spec) == size) {	/* an embedded NUL ends the C string early: same on both */
		FUZZ_CHECK((ret == 0) == (ret2 == 0), "parse_wire %d, settings wire= %d (%s)",
			   ret, ret2, st.msg);
		if (ret2 == 0)
			FUZZ_CHECK(memcmp(&st.cfg.wire[0], &cfg, sizeof(cfg)) == 0,
				   "settings wire= gives another config");
	}
	free(spec);
	return 0;
}
