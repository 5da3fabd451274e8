# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The counterpart of events_off: with testpmd's defaults (LSC and RMV
# interrupts on) the same link flap raises two link state change events and
# the permanent device fatal error, once recovery gives up (100 ms), a
# recovery failed event and then a removal event.
#@ vdev: net_mana0,wire=gen:flows=4:rate=1000,recovery_timeout=100
#@ args: --forward-mode=io
start
mana model link 0 down
mana wait 0 link_down 1 5000
mana model link 0 up
mana wait 0 link_up 1 5000
stop
mana model fatal 0
mana wait 0 recovery_failures 1 5000
