/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Public API of the software MANA device (the "model").
 *
 * A model device looks to its users exactly like a MANA device behind
 * rdma-core 44: its verbs objects are rdma-core's own structures and its
 * rings, CQEs and doorbells follow lib/mana_hw/mana_gdma.h. This header
 * adds what only a software device has: creating it, wiring its vPorts, the
 * engine (thread or manual stepping), fault injection and counters.
 *
 * No DPDK dependency. Errors: functions returning int give 0 or a negative
 * errno value; constructors return NULL and set errno.
 */

#ifndef MANA_MODEL_H
#define MANA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define MANA_MODEL_MAX_PORTS		8
#define MANA_MODEL_MAX_ENGINES		16	/* engine threads of one device */
/* Environment: the engine thread count when no engine_threads/engine_cpu key says. */
#define MANA_MODEL_ENGINE_THREADS_ENV	"MANA_MODEL_ENGINE_THREADS"
#define MANA_MODEL_NAME_LEN		32
#define MANA_MODEL_PATH_LEN		256
#define MANA_MODEL_MAX_FRAME		9216	/* largest frame on any wire */
#define MANA_MODEL_MAX_MTU		9000
#define MANA_MODEL_DEFAULT_MTU		1500

enum mana_model_wire_type {
	MANA_MODEL_WIRE_NONE = 0,	/* TX frames are counted and dropped */
	MANA_MODEL_WIRE_LOOP,		/* own TX to own RX */
	MANA_MODEL_WIRE_PAIR,		/* a cable to another vPort */
	MANA_MODEL_WIRE_GEN,		/* traffic generator (RX) and sink (TX) */
	MANA_MODEL_WIRE_PCAP,		/* RX from a capture file, TX to one */
	MANA_MODEL_WIRE_TAP,		/* a Linux TAP interface */
};

enum mana_model_gen_proto {
	MANA_MODEL_GEN_UDP = 0,
	MANA_MODEL_GEN_TCP,
};

struct mana_model_gen_cfg {
	uint32_t flows;		/* distinct 5-tuples, round robin; default 1 */
	uint32_t frame_len;	/* bytes without FCS, protocol minimum..9216; default 64 */
	enum mana_model_gen_proto proto;
	bool ipv6;
	uint64_t rate_pps;	/* 0: as fast as the engine runs */
	uint64_t count;		/* frames to send; 0: unlimited */
	bool lossless;		/* send only when the target RX queue has a posted WQE */
	uint8_t dst_mac[6];	/* all zero: the port's own MAC */
	uint32_t dst_ip_base;	/* IPv4 destination of flow 0 (host order); 0: 198.18.0.1 */
	uint32_t seed;		/* varies source addresses and ports */
	bool vlan;		/* frames carry an 802.1Q tag (inside frame_len) */
	uint16_t vlan_tci;	/* its PCP (15:13), DEI (12), VLAN ID (11:0) */
};

struct mana_model_wire_cfg {
	enum mana_model_wire_type type;
	union {
		struct {
			char dev[MANA_MODEL_NAME_LEN];	/* "" = the same device */
			uint8_t port;
		} pair;
		struct mana_model_gen_cfg gen;
		struct {
			char rx[MANA_MODEL_PATH_LEN];	/* "" = no RX */
			char tx[MANA_MODEL_PATH_LEN];	/* "" = no TX capture */
			bool loop_file;			/* replay rx forever */
		} pcap;
		struct {
			char ifname[16];
		} tap;
	};
};

/*
 * Which front-end serves a device's verbs: net_mana's shim (the PMD, in
 * process) or the replacement libibverbs (rdma-core programs). Both link the
 * one libmana_model of a process; each lists and opens only its own
 * devices, so a process holding both never reaches a device through the
 * other's door.
 */
enum mana_model_frontend {
	MANA_MODEL_FRONTEND_SHIM = 0,
	MANA_MODEL_FRONTEND_VERBS = 1,
};

struct mana_model_config {
	char name[MANA_MODEL_NAME_LEN];	/* unique; also the ibv_device name */
	uint8_t nports;			/* 1..MANA_MODEL_MAX_PORTS */
	uint8_t mac[MANA_MODEL_MAX_PORTS][6];
	bool mac_set[MANA_MODEL_MAX_PORTS];	/* false: generated 00:15:5d:xx:xx:xx */
	struct mana_model_wire_cfg wire[MANA_MODEL_MAX_PORTS];
	bool manual;			/* no engine thread: mana_model_step() drives it */
	/*
	 * Engine threads (doc/user_guide.md "Engine threads"): port p is
	 * served by thread p % engine_threads; thread i is pinned to
	 * engine_cpu[i] (-1: not pinned).
	 */
	uint8_t engine_threads;		/* 1..MANA_MODEL_MAX_ENGINES */
	int engine_cpu[MANA_MODEL_MAX_ENGINES];
	bool shared_doorbell;		/* hardware-like single doorbell page (hardware.md §1.2) */
	bool doorbell_untrapped;	/* shared page read as memory: the last store per slot
					 * (lossy; for valgrind, which cannot resume a trapped store) */
	bool rx_coalesce;		/* CQE type 2 (hardware.md §1.3); default true */
	uint16_t vendor_part_id;	/* 0 or 2 (hardware.md §7.3) */
	uint32_t max_qp;		/* default 64 */
	/*
	 * Queue depth (hardware.md §2.3, doc/user_guide.md "Ring depth"): the
	 * kernel's max_qp_wr = max_cqe, 1..2048 (0: 2048), and the rdma-core
	 * version whose provider is mirrored, 44.. (0: the one built against);
	 * below 49 the provider refuses more than 256 entries.
	 */
	uint32_t max_qp_wr;
	uint32_t rdma_core;
	/*
	 * RX CQEs made visible together: 1..64, default 8 (0 means the default);
	 * 1 makes each visible as it is written (doc/design.md, "Completion batching").
	 */
	uint32_t cqe_batch;
	int numa_node;			/* -1: any */
	char pci_bdf[16];		/* "" or dddd:bb:dd.f: present a PCI function in sysfs */
	char sysfs_root[MANA_MODEL_PATH_LEN];	/* where the PCI/IB sysfs tree is written */
	enum mana_model_frontend frontend;	/* default MANA_MODEL_FRONTEND_SHIM */
};

struct mana_model;

/*
 * Defaults: 1 port, loop wire, threaded engine, coalescing on. The engine
 * thread count is that of MANA_MODEL_ENGINE_THREADS (1..16) when set, else 1.
 */
void mana_model_config_init(struct mana_model_config *cfg, const char *name);

/*
 * Parse a wire spec into cfg:
 *   none | loop | pair:<port> | pair:<device>/<port>
 *   gen[:flows=N][:len=N][:proto=udp|tcp][:ipv6=0|1][:rate=PPS][:count=N]
 *      [:lossless=0|1][:dmac=02-00-00-00-00-01][:dip=a.b.c.d][:seed=N]
 *      [:vlan=ID[:pcp=P]]
 *      (len: bytes without FCS, at least the headers plus the 12-byte pattern header:
 *      60 UDP/IPv4, 66 TCP/IPv4, 74 UDP/IPv6, 86 TCP/IPv6; 4 more with vlan;
 *      vlan: an 802.1Q tag with VLAN ID 0..4095, priority pcp 0..7, DEI 0)
 *   pcap:rx=<file>[:tx=<file>][:loop=0|1] | pcap:tx=<file>
 *   tap:<ifname>
 * Returns 0 or -EINVAL; on error *why names what was wrong (static string).
 */
int mana_model_parse_wire(const char *spec, struct mana_model_wire_cfg *cfg, const char **why);

/*
 * Device settings as key=value pairs (model_settings.c): the one parser and
 * the one set of key names behind the PMD's devargs and the MANA_MODEL
 * environment. Keys (doc/user_guide.md, "Software device settings"):
 *   ports=1..8  mac=MAC  mac<N>=MAC  wire=<spec>  wire<N>=<spec>
 *   doorbell=queue|shared|memory  coalesce=0|1  cqe_batch=1..64
 *   engine_cpu=-1..1023[:-1..1023]...  engine_threads=1..16
 *   numa=-1..1023  max_qp=1..65535  part=0|2  max_qp_wr=1..2048  rdma_core=44..999
 *   name=<name>  pci=dddd:bb:dd.f  sysfs=<dir>      (MANA_MODEL_SETTINGS_IDENTITY)
 * The i-th mac= or wire= is that of port i; mac<N>= and wire<N>= name port N.
 * Old spellings still accepted: rx_coalesce (coalesce), cpu (engine_cpu),
 * doorbell=object (doorbell=queue).
 */
#define MANA_MODEL_SETTINGS_DEVICE	(1u << 0)	/* ports, MACs, wires, engine... */
#define MANA_MODEL_SETTINGS_IDENTITY	(1u << 1)	/* name, pci, sysfs */
/*
 * Room for the longest line: a quoted value (clipped at MANA_MODEL_SETTINGS_VAL_SHOWN bytes,
 * "..." after), the key, the reason and the allowed forms (a wire's are about 330 bytes).
 */
#define MANA_MODEL_SETTINGS_VAL_SHOWN	600
#define MANA_MODEL_SETTINGS_MSG_LEN	1280

struct mana_model_settings {
	struct mana_model_config cfg;	/* filled by the keys; defaults of config_init */
	unsigned int classes;		/* MANA_MODEL_SETTINGS_* keys accepted */
	const char *origin;		/* "devarg", "MANA_MODEL": starts deprecation notes */
	bool ports_given;
	bool engine_cpu_given;
	uint8_t engine_ncpu;		/* CPUs the engine_cpu list named */
	bool engine_threads_given;
	bool numa_given;
	uint8_t nmac, nwire;		/* mac= / wire= given so far (the next one's port) */
	uint8_t mac_ports, wire_ports;	/* bit N: port N's mac / wire set (once each) */
	uint32_t keys_given;		/* bit i: the i-th setting accepted (once only) */
	uint16_t ports_named;		/* bit N: a mac or wire key set port N */
	bool any_given;			/* any key was accepted */
	/* After set/finish: the error line, a deprecation note on success, or "". */
	char msg[MANA_MODEL_SETTINGS_MSG_LEN];
};

/* Defaults of mana_model_config_init(name); origin must outlive s. */
void mana_model_settings_init(struct mana_model_settings *s, const char *name,
			      unsigned int classes, const char *origin);
/*
 * Apply one key=value. Returns 0 (s->msg: "" or a one-line deprecation note
 * naming the new spelling), -ENOENT for a key outside s->classes (s->msg:
 * "unknown key 'k'") or -EINVAL for a bad value (s->msg: what was wrong and
 * what is allowed).
 */
int mana_model_settings_set(struct mana_model_settings *s, const char *key, const char *val);
/*
 * After the last key: the port count (ports=, else one more than the highest
 * port a mac or wire key named, at least 1) and the check that every mac and
 * wire names a port below it. 0 or -EINVAL with s->msg.
 */
int mana_model_settings_finish(struct mana_model_settings *s);
/* The i-th key name in classes ("mac<N>" for the indexed form), NULL past the end. */
const char *mana_model_settings_key(unsigned int classes, unsigned int i);

struct mana_model *mana_model_create(const struct mana_model_config *cfg);
/* -EBUSY while any ibv_context of the device is open. */
int mana_model_destroy(struct mana_model *m);
struct mana_model *mana_model_find(const char *name);
/* Number of model devices; fills up to max entries of list. */
unsigned int mana_model_list(struct mana_model **list, unsigned int max);
struct ibv_device *mana_model_ibv_device(struct mana_model *m);
/* The model behind an ibv_device, ibv_context or any verbs object's context; NULL if foreign. */
struct mana_model *mana_model_from_device(const struct ibv_device *dev);
struct mana_model *mana_model_from_context(const struct ibv_context *ctx);
const struct mana_model_config *mana_model_config(const struct mana_model *m);
/* Where the device's sysfs tree lives (the ibv_device's ibdev_path). */
const char *mana_model_ibdev_path(const struct mana_model *m);

/* Manual engine: one pass over every queue and wire; returns work items done. */
unsigned int mana_model_step(struct mana_model *m);
/* Steps until a pass does nothing (at most max_passes); returns passes run. */
unsigned int mana_model_run_idle(struct mana_model *m, unsigned int max_passes);

/* Faults and controls, usable while traffic runs. */
int mana_model_set_link(struct mana_model *m, unsigned int port, bool up);
/*
 * A permanent fatal error: every context gets IBV_EVENT_DEVICE_FATAL,
 * open_device fails EIO from now on.
 */
int mana_model_fatal(struct mana_model *m);
/*
 * A device reset that comes back (hardware.md §17): every open context gets
 * IBV_EVENT_DEVICE_FATAL and is dead from now on (its objects are no longer
 * processed: doorbells are discarded, nothing completes, no frame reaches
 * them; creating anything on it fails EIO, destroy calls and close_device
 * still succeed). open_device fails EIO for down_ms milliseconds, then gives
 * fresh contexts on the same vPorts, MACs and wires. -EIO after
 * mana_model_fatal (that one stays).
 */
int mana_model_reset(struct mana_model *m, uint32_t down_ms);

struct mana_model_reset_stats {
	uint64_t resets;		/* mana_model_reset calls that took effect */
	uint64_t fatals;		/* permanent fatal errors (0 or 1) */
	uint64_t contexts_killed;	/* contexts a reset made dead */
	uint64_t open_refused;		/* open_device refused while down or fatal */
	uint64_t db_discarded;		/* doorbells stored to dead objects' pages */
	bool down;			/* open_device would fail now */
};
int mana_model_reset_stats(const struct mana_model *m, struct mana_model_reset_stats *st);
/* The next n TX WQEs of port complete with error CQE type (33..41). */
/*
 * The next n TX WQEs of port complete with error CQE type (33..41). A second
 * call of the same type adds to what is pending; another type while one is
 * pending is -EBUSY (mana_model_last_error says which); n = 0 cancels.
 */
int mana_model_inject_tx_error(struct mana_model *m, unsigned int port, uint32_t type, uint32_t n);
/* Drop the next n frames arriving at port from its wire (counted as injected drops). */
int mana_model_drop_next(struct mana_model *m, unsigned int port, uint32_t n);
/*
 * Change a generator wire at run time: rate 0..1e9 frames/s (0: unlimited),
 * flows 1..65536 (0: unchanged), the limits of wire=gen:. -EINVAL when the
 * port's wire is no generator, -ERANGE (and mana_model_last_error) past a limit.
 */
int mana_model_gen_set(struct mana_model *m, unsigned int port, uint64_t rate_pps, uint32_t flows);
/* Hand one frame to port's RX as if it came from the wire. */
int mana_model_inject_rx(struct mana_model *m, unsigned int port, const void *frame, uint32_t len);
int mana_model_set_mtu(struct mana_model *m, unsigned int port, uint32_t mtu);
int mana_model_get_mac(const struct mana_model *m, unsigned int port, uint8_t mac[6]);

struct mana_model_port_stats {
	uint64_t rx_frames, rx_bytes;		/* delivered into RX WQEs */
	uint64_t tx_frames, tx_bytes;		/* put on the wire */
	uint64_t rx_drop_no_wqe;		/* no posted WQE on the target RQ */
	uint64_t rx_drop_no_rxq;		/* no RSS QP, or link down */
	uint64_t rx_drop_sge;			/* RX SGE outside an MR / not LOCAL_WRITE */
	uint64_t rx_drop_injected;
	uint64_t rx_truncated;			/* CQE_RX_TRUNCATED completions */
	uint64_t rx_coalesced_cqes;		/* type 2 CQEs written */
	uint64_t tx_err[11];			/* CQE types 33..42 at [type - 32] */
	uint64_t tx_drop_link_down;
	uint64_t db_rejected;			/* doorbell stores refused (hardware.md §14 #15) */
	uint64_t queue_errors;			/* queues stopped for a protocol violation */
	/* gen/pcap/tap wire side */
	uint64_t wire_gen_frames;		/* frames the generator produced */
	uint64_t wire_sink_frames, wire_sink_bytes;
	uint64_t wire_sink_bad;			/* bad checksum or corrupted payload */
	uint64_t wire_sink_csum_ok;		/* sink verified IP and L4 checksums */
	uint64_t wire_drops;			/* lost on the wire: inbox full, peer gone */
	uint64_t wire_sink_vlan;		/* sink frames carrying an 802.1Q tag */
	uint64_t rx_drop_runt;			/* shorter than an Ethernet header (14 B) */
	uint64_t rx_drop_filter;		/* unicast to another MAC (hardware.md §16) */
	uint64_t tx_lso_wqes;			/* LSO WQEs completed OK (hardware.md §3.5) */
	uint64_t tx_lso_segments;		/* frames they put on the wire (in tx_frames) */
};
int mana_model_port_stats(const struct mana_model *m, unsigned int port,
			  struct mana_model_port_stats *st);

/*
 * Memory regions of the device (every context): open now, and registered
 * since creation. addr non-NULL: open and open_bytes count only the open
 * MRs whose range holds addr.
 */
struct mana_model_mr_stats {
	uint32_t open;			/* registered and not deregistered */
	uint64_t open_bytes;		/* their lengths, summed */
	uint64_t registered;		/* successful reg_mr calls */
	uint64_t deregistered;		/* successful dereg_mr calls */
};
int mana_model_mr_stats(const struct mana_model *m, const void *addr,
			struct mana_model_mr_stats *st);
int mana_model_port_stats_reset(struct mana_model *m, unsigned int port);

/*
 * Counters of one queue, found by its hardware id (the sq_id or wq_id that
 * manadv_init_obj reports). An RQ's id and counters end with its RSS QP
 * (hardware.md §6: the hardware objects are re-created with it).
 */
struct mana_model_queue_stats {
	bool is_sq;
	unsigned int port;		/* 0-based vPort */
	unsigned int engine;		/* engine thread serving it (0 in manual mode) */
	uint64_t frames, bytes;		/* SQ: put on the wire; RQ: delivered into WQEs */
	uint64_t cqes;			/* completions written for this queue */
	uint64_t err_cqes;		/* SQ: error completions (types 33..41) */
	uint64_t drop_no_wqe;		/* RQ: frames that found no posted WQE */
	uint64_t drop_sge;		/* RQ: frames dropped for a bad SGE */
	uint64_t truncated;		/* RQ: CQE_RX_TRUNCATED completions */
	uint64_t coalesced_cqes;	/* RQ: type 2 CQEs */
};
/* -ENOENT if no live queue has that id. */
int mana_model_queue_stats(const struct mana_model *m, uint32_t queue_id,
			   struct mana_model_queue_stats *st);

/*
 * The final counters of the i-th queue (0 = oldest) that ended, by SQ (its QP
 * destroyed) or RQ (its RSS QP destroyed); the last 256 are kept. -ENOENT past
 * the end.
 */
int mana_model_retired_queue_stats(const struct mana_model *m, unsigned int i, uint32_t *queue_id,
				   struct mana_model_queue_stats *st);

/* Engine counters: passes, busy passes, and the engine's own CPU time. */
struct mana_model_engine_stats {
	uint64_t passes, busy_passes;
	uint64_t frames;		/* TX + RX frames handled */
	uint64_t doorbells;		/* doorbell stores taken (valid or rejected) */
	uint64_t cpu_ns;		/* threads' CPU time (threaded mode), summed */
	unsigned int threads;		/* engine threads running (0: manual mode) */
};
int mana_model_engine_stats(const struct mana_model *m, struct mana_model_engine_stats *st);

/*
 * Engine thread i alone (0 .. threads - 1; -ENOENT past them and in manual
 * mode): its counters and what it serves now (doc/user_guide.md "Engine threads").
 */
struct mana_model_engine_thread_stats {
	uint64_t passes, busy_passes;
	uint64_t frames;		/* TX + RX frames this thread handled */
	uint64_t doorbells;
	uint64_t cpu_ns;
	unsigned int sqs, rqs;		/* live SQs and bound RX WQs it serves */
	unsigned int wires;		/* ports whose wire and inbox it serves */
};
int mana_model_engine_thread_stats(const struct mana_model *m, unsigned int i,
				   struct mana_model_engine_thread_stats *st);

/* Last violation the device saw, as text ("" if none); for logs and tests. */
const char *mana_model_last_error(const struct mana_model *m);

#endif /* MANA_MODEL_H */
