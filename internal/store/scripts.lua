-- The Lua scripts of package store, one section each, introduced by a
-- line "--- <name>"; scripts.go documents what each does. Each touches
-- only the keys it is given, all of one hash slot, and takes field names
-- as arguments (package schema spells them).

--- push_ids
local key, cap, n = KEYS[1], tonumber(ARGV[1]), #ARGV
local function at(i) return tonumber(redis.call('LINDEX', key, i)) end
-- place returns the index of the first entry not above id (len if
-- none), galloping from the head (late ids are nearly always near it),
-- then bisecting
local function place(id, len)
  local lo, hi = 0, 1
  while hi < len and at(hi) > id do lo, hi = hi, math.min(2 * hi, len) end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if at(mid) > id then lo = mid + 1 else hi = mid end
  end
  return lo
end
local head = at(0)
local top = 2 -- the first of ARGV's ascending ids above the head
while top <= n and head and tonumber(ARGV[top]) <= head do top = top + 1 end
local len = 0
if top > 4 then
  -- several late ids: merge all the ids with the entries above the
  -- oldest of them, read at once, and put the merged run back on top
  len = redis.call('LLEN', key)
  local low = tonumber(ARGV[2])
  local depth = place(low, len)
  local from = 2
  if depth < len and at(depth) == low then from = 3 end
  local prefix = depth > 0 and redis.call('LRANGE', key, 0, depth - 1) or {}
  local nums = {}
  for i = 1, #prefix do nums[i] = tonumber(prefix[i]) end
  local asc, i, j = {}, #prefix, from -- both read from their oldest
  while i >= 1 or j <= n do
    local a, b = nums[i], j <= n and tonumber(ARGV[j]) or nil
    if b == nil or (a ~= nil and a < b) then asc[#asc + 1] = prefix[i]; i = i - 1
    elseif a == nil or b < a then asc[#asc + 1] = ARGV[j]; j = j + 1
    else asc[#asc + 1] = prefix[i]; i = i - 1; j = j + 1 end
  end
  redis.call('LTRIM', key, depth, -1)
  for k = 1, #asc, 1000 do
    len = redis.call('LPUSH', key, unpack(asc, k, math.min(k + 999, #asc)))
  end
else
  if top > 2 then len = redis.call('LLEN', key) end
  for k = 2, top - 1 do -- a late id or two, each put in its place
    local id = tonumber(ARGV[k])
    local lo = place(id, len)
    if lo < len then
      local v = redis.call('LINDEX', key, lo)
      if tonumber(v) ~= id then len = redis.call('LINSERT', key, 'BEFORE', v, ARGV[k]) end
    elseif len < cap then
      len = redis.call('RPUSH', key, ARGV[k])
    end
  end
  if top <= n then len = redis.call('LPUSH', key, unpack(ARGV, top, n)) end
end
if len > cap then redis.call('LTRIM', key, 0, cap - 1) end
return math.min(len, cap)

--- merge_ids
local cap, floor = tonumber(ARGV[1]), tonumber(ARGV[2])
local cur = redis.call('LRANGE', KEYS[1], 0, cap - 1)
local out, i, j = {}, 1, 3
while #out < cap and (i <= #cur or j <= #ARGV) do
  local a, b = tonumber(cur[i]), tonumber(ARGV[j])
  local v
  if b == nil or (a ~= nil and a > b) then v = cur[i]; i = i + 1
  elseif a == nil or b > a then v = ARGV[j]; j = j + 1
  else v = cur[i]; i = i + 1; j = j + 1 end
  if tonumber(v) < floor then break end
  if #out == 0 or tonumber(out[#out]) ~= tonumber(v) then out[#out + 1] = v end
end
redis.call('DEL', KEYS[1])
for k = 1, #out, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(out, k, math.min(k + 999, #out)))
end
return #out

--- page_ids
local before, after, n, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if after > 0 then
  local ids = redis.call('LRANGE', KEYS[1], 0, limit - 1)
  local k = 0
  for i, v in ipairs(ids) do
    if tonumber(v) > after then k = i else break end
  end
  local out = {}
  for i = math.max(1, k - n + 1), k do out[#out + 1] = ids[i] end
  return out
end
if before > 0 then
  local pos = redis.call('LPOS', KEYS[1], ARGV[1], 'MAXLEN', limit)
  if pos then return redis.call('LRANGE', KEYS[1], pos + 1, pos + n) end
  local out = {}
  for _, v in ipairs(redis.call('LRANGE', KEYS[1], 0, limit - 1)) do
    if tonumber(v) < before then
      out[#out + 1] = v
      if #out == n then break end
    end
  end
  return out
end
return redis.call('LRANGE', KEYS[1], 0, n - 1)

--- claim_name
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1

--- unclaim_name
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[3] then redis.call('HDEL', KEYS[1], ARGV[1]) end
if redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[3] then redis.call('HDEL', KEYS[2], ARGV[2]) end
return 1

--- upgrade_legacy
if redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[4], ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[3])
return 1

--- create_if_absent
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1

--- set_if_exists
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
