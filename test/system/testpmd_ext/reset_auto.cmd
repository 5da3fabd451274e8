# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# recovery=auto (the default) under forwarding: two device resets (200 ms
# and 0 ms down); each gives the recovering and the recovery successful
# events, the link reads up again after the first (issue 32 D1), and
# forwarding resumes by itself (counted from a stats reset).
#@ vdev: net_mana0,wire=gen:flows=4:rate=2000
#@ args: --forward-mode=io
start
mana wait 0 rx_good_packets 100 10000
mana model reset 0 200
mana wait 0 recovery_successes 1 10000
mana wait 0 link_up 1 3000
show port info 0
clear port xstats all
mana wait 0 rx_good_packets 100 10000
mana wait 0 tx_good_packets 100 10000
mana model reset 0 0
mana wait 0 recovery_successes 2 10000
clear port xstats all
mana wait 0 rx_good_packets 100 10000
stop
