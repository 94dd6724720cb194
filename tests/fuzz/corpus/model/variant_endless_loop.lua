-- Never finishes: stopped by the instruction limit.
local lcm = require("lcm")
while true do end
