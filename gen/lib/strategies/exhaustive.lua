-- Every candidate, in declaration order: what bartune run does by default.
local S = {}
local space, next_i

function S.init(sp) space, next_i = sp, 1 end

function S.ask(k)
  local out = {}
  while #out < k and next_i <= #space.candidates do
    out[#out + 1] = space.candidates[next_i]
    next_i = next_i + 1
  end
  return out
end

function S.tell() end

return S
