/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/* Helpers of the test_verbs_*.c files (on top of fixture.h). */

#ifndef TEST_VERBS_HELPERS_H
#define TEST_VERBS_HELPERS_H

#include "fixture.h"

/* NULL with errno == e. */
#define CHECK_FAILS(expr, e) do {						\
	errno = 0;								\
	const void *fails_p_ = (expr);						\
	if (fails_p_ != NULL)							\
		UNIT_FAIL("%s succeeded, expected errno %d (%s)", #expr, e,	\
			  strerror(e));						\
	else if (errno != (e))							\
		UNIT_FAIL("%s: errno %d (%s), expected %d (%s)", #expr, errno,	\
			  strerror(errno), e, strerror(e));			\
} while (0)

/* The RSS QP the verbs tests make: IPv4 addresses hashed, the default key. */
static inline void
rss_attr(struct ibv_qp_init_attr_ex *a, struct ibv_pd *pd, struct ibv_rwq_ind_table *t)
{
	fx_rss_attr(a, pd, t, fx_rss_key, IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4);
}

static inline struct ibv_qp *
rss_qp(struct fx *f, struct ibv_pd *pd, struct ibv_rwq_ind_table *t)
{
	struct ibv_qp_init_attr_ex a;

	rss_attr(&a, pd, t);
	return mana_vs_create_qp_ex(f->ctx, &a);
}

#endif /* TEST_VERBS_HELPERS_H */
