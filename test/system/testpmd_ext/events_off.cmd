# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Events the application turned off (issue 13 item 9): with
# --no-lsc-interrupt a link flap raises no link state change event, the link
# is read by polling (mana wait link_*); with --no-rmv-interrupt a device
# fatal error for good raises no removal event (testpmd would detach the
# port) once recovery gives up: the link goes down and the port refuses to
# start again.
#@ vdev: net_mana0,wire=gen:flows=4:rate=1000,recovery_timeout=100
#@ args: --no-lsc-interrupt --no-rmv-interrupt --forward-mode=io
start
mana model link 0 down
mana wait 0 link_down 1 5000
mana model link 0 up
mana wait 0 link_up 1 5000
mana wait 0 rx_good_packets 1 10000
mana model fatal 0
mana wait 0 link_down 1 5000
mana wait 0 recovery_failures 1 5000
show port summary all
stop
port stop 0
port start 0
