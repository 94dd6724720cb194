-- lcm/host.lua - runs a model file and returns it as data (lcm.build's B.model).
--
-- The model runs in the environment of the sandbox that the C host made
-- (gen/lua_sandbox.h): `box.env`.  Every Lua and data file it read through
-- the sandbox is in `box.files`; with the model first, they are what
-- `lcmgen -M` writes as a depfile, so build systems regenerate on change.

local H = {}

function H.run(model_path, given_options, given_fixes, box)
  local lcm = require("lcm")
  lcm._set_options(given_options)
  lcm._set_fixes(given_fixes)
  lcm._set_reader(box.read_file)

  local function deps()
    local list = { model_path }
    for _, path in ipairs(box.files) do
      if path ~= model_path then list[#list + 1] = path end
    end
    return list
  end

  -- Lua shortens long file names in its messages ("...s/models/x.lua:3:");
  -- put the full name of the file back.
  local function full_paths(msg)
    msg = type(msg) == "string" and msg or tostring(msg)
    -- on the message's head: the sandbox bounds a pattern's cost by the
    -- length of its subject (gen/lua_sandbox.c), and a model may raise a
    -- long message
    local tail = msg:sub(1, 2000):match("^%.%.%.(.-):%d+:")
    local rest = tail and msg:sub(4 + #tail)
    if tail then
      for _, path in ipairs(deps()) do
        if path:sub(-#tail) == tail then return path .. rest end
      end
    end
    return msg
  end

  local chunk, err = box.load_file(model_path)
  if not chunk then error(full_paths(err), 0) end
  local ok, model = pcall(chunk)
  if not ok then error(full_paths(model), 0) end
  local stem = model_path:match("([^/]+)$"):gsub("%.lua$", "")
  local built, data, reachability = pcall(require("lcm.build").model, model, model_path, stem)
  if not built then error(full_paths(data), 0) end
  return data, deps(), require("lcm.trace").take_warnings(), reachability
end

return H
