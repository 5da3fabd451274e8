# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# recovery=manual and testpmd's reset flow: a device reset while forwarding
# raises the reset event; port stop / port reset / port start (testpmd sets
# the queues up again) and forwarding resumes, counted again from zero.
#@ vdev: net_mana0,wire=gen:flows=4:rate=2000,recovery=manual
#@ args: --forward-mode=io
start
mana wait 0 rx_good_packets 100 10000
mana model reset 0 200
mana wait 0 recovery_fatal_events 1 5000
mana wait 0 link_down 1 5000
stop
port stop all
port start all
port reset all
port start all
clear port xstats all
start
mana wait 0 rx_good_packets 100 10000
mana wait 0 tx_good_packets 100 10000
mana wait 0 recovery_dev_resets 1 1000
stop
