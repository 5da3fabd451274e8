# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# mana model rx_truncate on scattered layouts (issue 32 D5): with 2048-byte
# mbufs and frames of up to 3018 bytes each WQE holds 2 mbufs, and frames
# longer than both complete truncated; with MTU 9000 a WQE holds 5 mbufs,
# more than the largest frame the device takes: the command says nothing
# can be truncated and sends nothing.
#@ vdev: net_mana0,wire=loop
#@ args: --mbuf-size=2048 --max-pkt-len=3018 --enable-scatter --forward-mode=rxonly
start
mana model rx_truncate 0 3
mana wait 0 rx_truncated 3 5000
stop
port stop 0
port config mtu 0 9000
port start 0
start
mana model rx_truncate 0 5
mana model stats 0
stop
