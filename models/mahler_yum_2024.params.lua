-- Parameters of models/mahler_yum_2024.lua as pylcm's benchmark uses them,
-- made from the estimated structural parameters (mahler_yum_2024/estimates.lua)
-- by mahler_yum_2024/inputs.lua.
local inputs = require("mahler_yum_2024.inputs")
return inputs.model_params(require("mahler_yum_2024.estimates"), "benchmark")
