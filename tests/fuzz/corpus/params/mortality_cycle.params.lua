-- A table that holds itself, and one nested deeper than any array.
local t = {}
t[1] = t
local deep = 0.5
for _ = 1, 150 do deep = { deep } end
return { beta = t, wage = { bad = deep, good = 1 }, interest_rate = 0.03 }
