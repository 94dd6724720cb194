-- lcm/host.lua - runs a model file and returns its manifest.
--
-- Records every Lua file the model loads (require, dofile, loadfile), which
-- `lcmgen -M` writes as a depfile so build systems regenerate on change.

local H = {}

function H.run(model_path, given_options)
  local lcm = require("lcm")
  lcm._set_options(given_options)

  local deps, seen = {}, {}
  local function dep(path)
    if path and not seen[path] then
      seen[path] = true
      deps[#deps + 1] = path
    end
  end
  dep(model_path)

  local raw_loadfile, raw_dofile = loadfile, dofile
  loadfile = function(path, ...)
    dep(path)
    return raw_loadfile(path, ...)
  end
  dofile = function(path)
    dep(path)
    return raw_dofile(path)
  end
  local lua_searcher = package.searchers[2]
  package.searchers[2] = function(name)
    local loader, path = lua_searcher(name)
    if type(loader) == "function" then dep(path) end
    return loader, path
  end
  local dir = model_path:match("^(.*)/[^/]*$") or "."
  package.path = dir .. "/?.lua;" .. package.path

  -- Lua shortens long file names in its messages ("...s/models/x.lua:3:");
  -- put the full name of the file back.
  local function full_paths(msg)
    msg = type(msg) == "string" and msg or tostring(msg)
    local tail, rest = msg:match("^%.%.%.(.-)(:%d+:.*)$")
    if tail then
      for _, path in ipairs(deps) do
        if path:sub(-#tail) == tail then return path .. rest end
      end
    end
    return msg
  end

  local chunk, err = raw_loadfile(model_path, "t")
  if not chunk then error(full_paths(err), 0) end
  local ok, model = pcall(chunk)
  if not ok then error(full_paths(model), 0) end
  local stem = model_path:match("([^/]+)$"):gsub("%.lua$", "")
  local built, manifest = pcall(require("lcm.build").manifest, model, model_path, stem)
  if not built then error(full_paths(manifest), 0) end
  return manifest, deps, require("lcm.trace").take_warnings()
end

return H
