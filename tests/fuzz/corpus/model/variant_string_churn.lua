-- Few instructions, each doing much work: allocations count as instructions.
local t = {}
while true do t[0] = ("x"):rep(1e6) end
