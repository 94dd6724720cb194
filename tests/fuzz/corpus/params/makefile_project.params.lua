-- The parameters of this project: the bundled ones, with a higher pension.
-- (Paths in a params file are relative to the directory lcm runs in; make
-- runs recipes in this directory.)
local params = dofile("../../models/mortality.params.lua")
params.pension = 15.0
return params
