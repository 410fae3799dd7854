#!/bin/sh
# The Cholesky example at a small size, every policy, result checked.
exec ./cholesky -q -s eager,prio,random,ws,lws
