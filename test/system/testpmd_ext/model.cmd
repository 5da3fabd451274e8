# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The mana model commands while io forwarding runs: 200 generated frames,
# the first 10 dropped by the device, 5 TX completions turned into errors;
# the generator starts with 1 flow at 1 frame/s and is switched to 4 flows
# at full rate (RSS then spreads them over 3 of the 4 queues, which one
# flow cannot do); 3 frames longer than the RX buffers complete truncated;
# then link down and up, and argument errors.
#@ vdev: net_mana0,wire=gen:flows=1:count=200:rate=1:lossless=1
#@ args: --forward-mode=io --no-flush-rx --rxq=4 --txq=4
mana show rss 0 flow 10.0.0.1 198.18.0.1 udp 1024 9
mana show rss 0 flow 10.0.0.2 198.18.0.1 udp 1025 9
mana show rss 0 flow 10.0.0.4 198.18.0.1 udp 1027 9
mana model drop 0 10
mana model tx_error 0 33 5
mana model gen 0 rate 0 flows 4
start
mana wait 0 wire_gen_frames 200 10000
mana wait 0 wire_sink_frames 185 10000
mana model rx_truncate 0 3
mana wait 0 rx_truncated 3 5000
mana wait 0 rx_errors 3 5000
mana model stats 0
mana show queue 0 tx 2
show port xstats 0
mana model link 0 down
mana wait 0 link_down 1 5000
show port info 0
mana model link 0 up
mana wait 0 link_up 1 5000
show port info 0
stop
# argument errors
mana model tx_error 0 12 1
mana model gen 0 rate 100 flows 0
mana model gen 0 rate 2000000000 flows 4
mana model gen 0 rate 100 flows 65537
mana model drop 5 1
mana model drop 0 0
mana model tx_error 0 33 0
mana wait 0 no_such_counter 1 10
