# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The mana show commands, and the RSS answer checked against the device:
# one flow (10.0.0.1:1024 -> 198.18.0.1:9) whose hash and queue the device
# reports per packet in testpmd's verbose output.
#@ vdev: net_mana0,mac=02:00:00:00:00:0a,wire=gen:flows=1:count=64:lossless=1,rdma_core=56
#@ args: --rxq=4 --txq=4 --forward-mode=rxonly --no-flush-rx
#@ stdin: help drivers
mana show port 0
mana show rss 0
mana show rss 0 flow 10.0.0.1 198.18.0.1 udp 1024 9
mana show queue 0 rx 0
mana show queue 0 tx 3
set verbose 1
start
mana wait 0 rx_frames 64 5000
mana wait 0 rx_good_packets 64 5000
# while forwarding runs
mana show port 0
mana show rss 0
stop
mana show queue 0 rx 0
mana show queue 0 rx 1
mana show queue 0 rx 2
mana show queue 0 rx 3
set verbose 0
# argument errors
mana show port 9
mana show queue 0 rx 7
mana show rss 0 flow 10.0.0.1 ::1 udp 1 2
