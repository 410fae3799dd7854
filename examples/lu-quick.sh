#!/bin/sh
# The LU example at a small size (tile size not dividing n, so the edge
# tiles are rectangular), every policy, result checked.
exec ./lu -q -n 500 -s eager,prio,random,ws,lws,dmda
