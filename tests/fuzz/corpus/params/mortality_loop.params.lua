-- Never finishes: stopped by the instruction limit.
local x = 0
while true do x = x + 1 end
return { interest_rate = x }
