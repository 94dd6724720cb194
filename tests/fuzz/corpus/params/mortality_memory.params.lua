-- Takes memory until the cap stops it.
local t = {}
for i = 1, math.huge do t[i] = { i, i, i, i } end
return { survival = t }
