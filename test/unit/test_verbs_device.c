/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Devices and contexts of lib/verbs_shim/mana_vs.h on a model device: the
 * device list, open/close, query_device_ex, query_port, async events and the
 * port MTU (hardware.md §2.3, §14 #27, #28).
 */

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fixture.h"

static void
test_device_list_open_close(void)
{
	struct mana_model_config cfg;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct mana_model *m;
	int n = -1, i, found = -1;

	fx_config(&cfg, 2);
	m = mana_vs_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	/* the same name twice: refused (names are unique) */
	CHECK_NULL(mana_vs_model_create(&cfg));
	list = mana_vs_get_device_list(&n);
	REQUIRE_NOT_NULL(list);
	CHECK(n >= 1);
	for (i = 0; i < n; i++)
		if (list[i] == mana_model_ibv_device(m))
			found = i;
	CHECK_NULL(list[n]);
	REQUIRE(CHECK(found >= 0));
	CHECK_EQ(mana_vs_device_backend(list[found]), MANA_VS_BACKEND_MODEL);
	CHECK(strcmp(mana_vs_device_name(list[found]), cfg.name) == 0);
	CHECK(mana_vs_ibdev_path(list[found]) != NULL);
	ctx = mana_vs_open_device(list[found]);
	mana_vs_free_device_list(list);
	REQUIRE_NOT_NULL(ctx);
	CHECK_EQ(mana_vs_context_backend(ctx), MANA_VS_BACKEND_MODEL);
	CHECK(mana_vs_model_of(ctx) == m);
	CHECK(mana_model_from_context(ctx) == m);
	CHECK(ctx->device == mana_model_ibv_device(m));
	/* async_fd non-blocking (hardware.md §14 #27) */
	CHECK(fcntl(ctx->async_fd, F_GETFL) & O_NONBLOCK);
	/* the device cannot go while a context is open */
	CHECK_EQ(mana_vs_model_destroy(m), -EBUSY);
	CHECK_EQ(mana_vs_close_device(ctx), 0);
	CHECK_EQ(mana_vs_model_destroy(m), 0);
}

static void
test_query_device(void)
{
	struct mana_model_config cfg;
	struct ibv_device_attr_ex attr;
	struct ibv_query_device_ex_input in;
	struct fx f;

	fx_config(&cfg, 3);
	cfg.vendor_part_id = 2;
	cfg.max_qp = 32;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	memset(&attr, 0, sizeof(attr));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, NULL, &attr), 0);
	/* rule 5 (the kernel's default, hardware.md §7.3), 14 #28 */
	CHECK_EQ(attr.orig_attr.max_qp_wr, 2048);
	CHECK_EQ(attr.orig_attr.max_cqe, 2048);
	CHECK_EQ(attr.orig_attr.max_sge, 15);
	CHECK_EQ(attr.orig_attr.phys_port_cnt, 3);
	CHECK_EQ(attr.orig_attr.vendor_part_id, 2);
	CHECK_EQ(attr.orig_attr.max_qp, 32);
	CHECK_NE(attr.raw_packet_caps, 0);
	memset(&in, 0, sizeof(in));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, &in, &attr), 0);
	in.comp_mask = 1;
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, &in, &attr), -EINVAL);
	fx_close(&f);

	fx_config(&cfg, 1);
	cfg.vendor_part_id = 0;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	memset(&attr, 0, sizeof(attr));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, NULL, &attr), 0);
	CHECK_EQ(attr.orig_attr.vendor_part_id, 0);
	CHECK_EQ(attr.orig_attr.phys_port_cnt, 1);
	CHECK_EQ(attr.orig_attr.max_qp, 64);	/* default */
	fx_close(&f);
}

static void
test_query_port(void)
{
	struct ibv_port_attr pa;
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	memset(&pa, 0xFF, sizeof(pa));
	CHECK_EQ(mana_vs_query_port(f.ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_EQ(pa.phys_state, 5);	/* LinkUp */
	CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	CHECK_EQ(pa.max_mtu, IBV_MTU_4096);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 0, &pa), -EINVAL);
	CHECK_EQ(mana_vs_query_port(f.ctx, 3, &pa), -EINVAL);
	/* link down on vPort 1 (IB port 2) */
	CHECK_EQ(mana_model_set_link(f.m, 1, false), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_DOWN);
	CHECK_EQ(pa.phys_state, 3);	/* Disabled */
	CHECK_EQ(mana_vs_query_port(f.ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_EQ(mana_model_set_link(f.m, 1, true), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	while (1) {	/* drain the link events */
		struct ibv_async_event ev;

		if (mana_vs_get_async_event(f.ctx, &ev) != 0)
			break;
		mana_vs_ack_async_event(f.ctx, &ev);
	}
	fx_close(&f);
}

static void
test_async_events(void)
{
	struct ibv_async_event ev;
	struct pollfd pfd;
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), -EAGAIN);
	pfd.fd = f.ctx->async_fd;
	pfd.events = POLLIN;
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(mana_model_set_link(f.m, 1, false), 0);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	memset(&ev, 0, sizeof(ev));
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_PORT_ERR);
	CHECK_EQ(ev.element.port_num, 2);
	mana_vs_ack_async_event(f.ctx, &ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), -EAGAIN);
	CHECK_EQ(mana_model_set_link(f.m, 1, true), 0);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	CHECK_EQ(ev.element.port_num, 2);
	mana_vs_ack_async_event(f.ctx, &ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), -EAGAIN);
	CHECK_EQ(mana_model_fatal(f.m), 0);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(f.ctx, &ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), -EAGAIN);
	fx_close(&f);
}

static void
test_port_mtu(void)
{
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 1, 9000), 0);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 2, 1500), 0);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 1, MANA_MODEL_MAX_MTU + 1), -EINVAL);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 0, 1500), -EINVAL);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 3, 1500), -EINVAL);
	fx_close(&f);
}

/* Directories a PCI presentation shares with other devices, deepest first. */
static const char *const shared_dirs[] = {
	"bus/pci/drivers/mana", "bus/pci/drivers", "bus/pci/devices", "bus/pci", "bus",
	"class/infiniband", "class/infiniband_verbs", "class",
};

/* hardware.md §7.4: the port's MTU is its netdev's; the PCI presentation's mtu file follows it. */
static void
test_port_mtu_sysfs(void)
{
	char root[] = "/tmp/mana_unit_sysfs_XXXXXX", path[512];
	struct mana_model_config cfg;
	unsigned int mtu = 0;
	struct fx f;
	FILE *fp;

	REQUIRE_NOT_NULL(mkdtemp(root));
	fx_config(&cfg, 2);
	snprintf(cfg.pci_bdf, sizeof(cfg.pci_bdf), "7871:00:00.0");
	snprintf(cfg.sysfs_root, sizeof(cfg.sysfs_root), "%s", root);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 2, 4000), 0);
	snprintf(path, sizeof(path), "%s/device/net/%.10s_p1/mtu",
		 mana_vs_ibdev_path(mana_model_ibv_device(f.m)), cfg.name);
	fp = fopen(path, "r");
	if (CHECK(fp != NULL)) {
		CHECK_EQ(fscanf(fp, "%u", &mtu), 1);
		fclose(fp);
	}
	CHECK_EQ(mtu, 4000);
	fx_close(&f);
	/* The device removed its own nodes; the shared directories stay. */
	CHECK(access(path, F_OK) != 0);
	for (unsigned int i = 0; i < sizeof(shared_dirs) / sizeof(shared_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, shared_dirs[i]);
		CHECK_EQ(rmdir(path), 0);
	}
	CHECK_EQ(rmdir(root), 0);
}


/* A vPort's MAC is unicast, not zero, and no other port's (of this or another device). */
static void
test_port_macs(void)
{
	static const uint8_t bad[][6] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },	/* broadcast */
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },	/* multicast */
		{ 0, 0, 0, 0, 0, 0 },
	};
	struct mana_model_config cfg, cfg2;
	struct mana_model *m, *m2;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_config(&cfg, 1);
		memcpy(cfg.mac[0], bad[i], 6);
		cfg.mac_set[0] = true;
		errno = 0;
		CHECK_NULL(mana_model_create(&cfg));
		CHECK_EQ(errno, EINVAL);
	}
	/* the same MAC on two ports of one device */
	fx_config(&cfg, 2);
	for (i = 0; i < 2; i++) {
		memcpy(cfg.mac[i], (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x0a }, 6);
		cfg.mac_set[i] = true;
	}
	errno = 0;
	CHECK_NULL(mana_model_create(&cfg));
	CHECK_EQ(errno, EINVAL);
	/* ... and on a port of another device */
	cfg.nports = 1;
	m = mana_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	fx_config(&cfg2, 1);
	memcpy(cfg2.mac[0], cfg.mac[0], 6);
	cfg2.mac_set[0] = true;
	errno = 0;
	m2 = mana_model_create(&cfg2);
	CHECK_NULL(m2);
	CHECK_EQ(errno, EADDRINUSE);
	if (m2 != NULL)
		mana_model_destroy(m2);
	CHECK_EQ(mana_model_destroy(m), 0);
	/* free again once the first device is gone */
	m2 = mana_model_create(&cfg2);
	CHECK(m2 != NULL);
	if (m2 != NULL)
		CHECK_EQ(mana_model_destroy(m2), 0);
}
/*
 * Every way mana_model_create can fail after the configuration check
 * leaves nothing behind: no device in the registry (the name is free
 * again), no sysfs nodes, and errno says why.
 */
static void
test_create_unwind(void)
{
	char root[] = "/tmp/mana_unit_unwind_XXXXXX", path[512];
	struct mana_model_config cfg, cfg2;
	unsigned int before = mana_model_list(NULL, 0);
	struct mana_model *m, *m2;

	REQUIRE_NOT_NULL(mkdtemp(root));
	/* a name in use */
	fx_config(&cfg, 1);
	m = mana_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	errno = 0;
	m2 = mana_model_create(&cfg);
	CHECK_NULL(m2);
	CHECK_EQ(errno, EEXIST);
	CHECK(mana_model_find(cfg.name) == m);
	/* a pair cable to a port of an existing device that does not pair back */
	fx_config(&cfg2, 1);
	cfg2.wire[0].type = MANA_MODEL_WIRE_PAIR;
	snprintf(cfg2.wire[0].pair.dev, sizeof(cfg2.wire[0].pair.dev), "%s", cfg.name);
	errno = 0;
	CHECK_NULL(mana_model_create(&cfg2));
	CHECK_EQ(errno, EINVAL);
	CHECK_NULL(mana_model_find(cfg2.name));
	CHECK_EQ(mana_model_destroy(m), 0);

	/* the second port's wire fails to open after the sysfs tree was made */
	fx_config(&cfg, 2);
	snprintf(cfg.pci_bdf, sizeof(cfg.pci_bdf), "7872:00:00.0");
	snprintf(cfg.sysfs_root, sizeof(cfg.sysfs_root), "%s", root);
	cfg.wire[1].type = MANA_MODEL_WIRE_PCAP;
	snprintf(cfg.wire[1].pcap.rx, sizeof(cfg.wire[1].pcap.rx), "%s/no_such.pcap", root);
	errno = 0;
	CHECK_NULL(mana_model_create(&cfg));
	CHECK_EQ(errno, ENOENT);
	CHECK_NULL(mana_model_find(cfg.name));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s", root, cfg.name);
	CHECK(access(path, F_OK) != 0);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root, cfg.pci_bdf);
	CHECK(access(path, F_OK) != 0);
	/* the same name and MACs are free again */
	cfg.wire[1].type = MANA_MODEL_WIRE_NONE;
	m = mana_model_create(&cfg);
	CHECK(m != NULL);
	if (m != NULL)
		CHECK_EQ(mana_model_destroy(m), 0);

	/* the sysfs tree cannot be made: its root is below a regular file */
	snprintf(path, sizeof(path), "%s/file", root);
	{
		FILE *fp = fopen(path, "w");

		REQUIRE_NOT_NULL(fp);
		fclose(fp);
	}
	fx_config(&cfg, 1);
	snprintf(cfg.sysfs_root, sizeof(cfg.sysfs_root), "%s/file/sub", root);
	errno = 0;
	CHECK_NULL(mana_model_create(&cfg));
	CHECK_EQ(errno, ENOTDIR);
	CHECK_NULL(mana_model_find(cfg.name));
	CHECK_EQ(mana_model_list(NULL, 0), before);
	CHECK_EQ(unlink(path), 0);
	/* Only the directories devices share are left (rmdir fails on anything else). */
	for (unsigned int i = 0; i < sizeof(shared_dirs) / sizeof(shared_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, shared_dirs[i]);
		CHECK_EQ(rmdir(path), 0);
	}
	CHECK_EQ(rmdir(root), 0);
}
static const struct unit_test tests[] = {
	UNIT_TEST(test_device_list_open_close),
	UNIT_TEST(test_query_device),
	UNIT_TEST(test_query_port),
	UNIT_TEST(test_async_events),
	UNIT_TEST(test_port_mtu),
	UNIT_TEST(test_port_mtu_sysfs),
	UNIT_TEST(test_port_macs),
	UNIT_TEST(test_create_unwind),
};

UNIT_MAIN(tests)
