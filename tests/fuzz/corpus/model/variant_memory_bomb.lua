-- Takes memory until the cap stops it.
local t = {}
while true do t[#t + 1] = ("x"):rep(1e6) end
