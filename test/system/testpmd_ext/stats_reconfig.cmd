# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Port statistics across a queue reconfiguration (issue 13 item 14): 3000
# generated frames forwarded on 2 queues, then the port reconfigured to 1
# queue: rx_good_packets and tx_good_packets still equal the device's
# dev_rx_frames and dev_tx_frames (all cumulative) until `clear port
# xstats`, which restarts both at 0.
#@ vdev: net_mana0,wire=gen:flows=8:count=3000:lossless=1
#@ args: --forward-mode=io --rxq=2 --txq=2
start
mana wait 0 wire_gen_frames 3000 10000
mana wait 0 rx_good_packets 3000 10000
stop
port stop 0
port config all rxq 1
port config all txq 1
port start 0
show port xstats 0
clear port xstats 0
show port xstats 0
