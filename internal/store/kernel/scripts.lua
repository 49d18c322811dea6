-- The Lua scripts of package store, one section each, introduced by a
-- line "--- <name>"; scripts.go documents what each does. Each touches
-- only the keys it is given, all of one hash slot, and takes key
-- prefixes and field names as arguments (package schema spells them).
-- A section named "lib <name>" holds helpers that scripts.go puts in
-- front of the scripts that use them.

--- lib timeline
-- A timeline is a list of post ids, newest first, without repeats. A
-- home timeline keeps at least `keep` entries in its list; older ones
-- move, `chunk` at a time, to its archive: a sorted set (the index) of
-- chunk numbers scored by the oldest id of each chunk, every chunk a
-- list like the timeline's, named by a prefix and its number. Every id
-- of the archive is older than every id of the list, and the chunks
-- follow each other in id order, so the list and the chunks, newest
-- first, are one descending sequence.
local function at(key, i) return tonumber(redis.call('LINDEX', key, i)) end

-- place returns the index of the first entry of key not above id (len
-- if none), galloping from the head (late ids are nearly always near
-- it), then bisecting.
local function place(key, id, len)
  local lo, hi = 0, 1
  while hi < len and at(key, hi) > id do lo, hi = hi, math.min(2 * hi, len) end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if at(key, mid) > id then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- below returns the index of the first entry of key below id (len if
-- none), bisecting.
local function below(key, id, len)
  local lo, hi = 0, len
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if at(key, mid) >= id then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- insert puts id into the descending list key of length len, in its
-- place, unless it is there; it returns the new length.
local function insert(key, id, len)
  local i = place(key, id, len)
  if i == len then return redis.call('RPUSH', key, id) end
  local v = redis.call('LINDEX', key, i)
  if tonumber(v) == id then return len end
  return redis.call('LINSERT', key, 'BEFORE', v, id)
end

-- newestChunk returns the number of the archive's newest chunk, or nil.
local function newestChunk(idx)
  local top = redis.call('ZREVRANGE', idx, 0, 0)
  return top[1]
end

-- archive moves entries off the tail of list (of length len), chunk at
-- a time, into new chunks of the archive, while the list holds more than
-- keep + chunk; it returns the list's new length.
local function archive(list, idx, prefix, keep, chunk, len)
  while len > keep + chunk do
    local moved = redis.call('LRANGE', list, -chunk, -1)
    local n = newestChunk(idx)
    n = n and tonumber(n) + 1 or 0
    for k = 1, #moved, 1000 do
      redis.call('RPUSH', prefix .. n, unpack(moved, k, math.min(k + 999, #moved)))
    end
    redis.call('ZADD', idx, moved[#moved], n)
    redis.call('LTRIM', list, 0, -chunk - 1)
    len = len - chunk
  end
  return len
end

-- archived puts id, older than the list's tail, where it belongs: at the
-- list's tail when it is newer than the whole archive, else into the
-- chunk that covers it. An id older than the archive's oldest chunk is
-- dropped: it predates this timeline. It returns the list's new length.
local function archived(list, idx, prefix, id, len)
  local n = newestChunk(idx)
  if not n or id > at(prefix .. n, 0) then return redis.call('RPUSH', list, id) end
  local c = redis.call('ZREVRANGEBYSCORE', idx, id, '-inf', 'LIMIT', 0, 1)[1]
  if c then
    local key = prefix .. c
    insert(key, id, redis.call('LLEN', key))
  end
  return len
end

-- capped bounds list (of length len) after a push: with chunks, its
-- tail moves to the archive (archive); without, it is cut at keep. It
-- returns the list's new length.
local function capped(list, idx, prefix, keep, chunk, len)
  if chunk > 0 then
    return archive(list, idx, prefix, keep, chunk, len)
  elseif len > keep then
    redis.call('LTRIM', list, 0, keep - 1)
    return keep
  end
  return len
end

--- push_ids lib timeline
-- KEYS[1]: the list; KEYS[2], for a home timeline: its archive index;
-- KEYS[3], for a delivery: the owner's user hash. ARGV: keep, chunk (0:
-- none; then the list is cut at keep), the chunk key prefix, the horizon
-- (unix time) and the field of the time the owner was last seen (a
-- delivery to an owner seen before the horizon does nothing and returns
-- -1), then the ids, ascending.
local list, idx = KEYS[1], KEYS[2]
local keep, chunk, prefix, n = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], #ARGV
if KEYS[3] then
  local seen = tonumber(redis.call('HGET', KEYS[3], ARGV[5]))
  if seen and seen < tonumber(ARGV[4]) then return -1 end
end
local first = 6
local head = at(list, 0)
local top = first -- the first of ARGV's ids above the head
while top <= n and head and tonumber(ARGV[top]) <= head do top = top + 1 end
local len = 0
local oldest = tonumber(ARGV[first])
local newest = top > first and redis.call('LRANGE', list, 0, 15) or {}
if top > first and tonumber(newest[#newest]) <= oldest then
  -- late ids, all among the newest entries: the usual case, a delivery
  -- overtaken by a few others. One goes in before the first entry not
  -- above it; several are merged with the entries above the oldest of
  -- them and put back on top.
  local depth = 0 -- the entries above the oldest late id
  while depth < #newest and tonumber(newest[depth + 1]) > oldest do depth = depth + 1 end
  if top - first == 1 then
    if tonumber(newest[depth + 1]) ~= oldest then
      len = redis.call('LINSERT', list, 'BEFORE', newest[depth + 1], ARGV[first])
    end
  else
    local asc, i, j = {}, depth, first -- both read from their oldest
    if tonumber(newest[depth + 1]) == oldest then j = first + 1 end -- there already
    while i >= 1 or j < top do
      local a, b = tonumber(newest[i]), j < top and tonumber(ARGV[j]) or nil
      if b == nil or (a ~= nil and a < b) then asc[#asc + 1] = newest[i]; i = i - 1
      elseif a == nil or b < a then asc[#asc + 1] = ARGV[j]; j = j + 1
      else asc[#asc + 1] = newest[i]; i = i - 1; j = j + 1 end
    end
    if depth > 0 then redis.call('LTRIM', list, depth, -1) end
    len = redis.call('LPUSH', list, unpack(asc)) -- at most 16 entries and the late ids of one call
  end
  if len == 0 and top > n then len = redis.call('LLEN', list) end
elseif top > first then
  -- late ids further down: those below the list's tail go to its end or
  -- the archive, the others into the list
  len = redis.call('LLEN', list)
  local tail = at(list, -1)
  local low = first -- the first late id not below the tail
  while low < top and tonumber(ARGV[low]) < tail do low = low + 1 end
  for k = low - 1, first, -1 do -- the newest first, so that pushes at the tail keep the order
    local id = tonumber(ARGV[k])
    if chunk > 0 then
      len = archived(list, idx, prefix, id, len)
    elseif len < keep then
      len = redis.call('RPUSH', list, ARGV[k])
    end
  end
  if top - low > 2 then
    -- several late ids: merge them with the entries above the oldest of
    -- them, read at once, and put the merged run back on top
    local oldest = tonumber(ARGV[low])
    local depth = place(list, oldest, len)
    local from = low
    if depth < len and at(list, depth) == oldest then from = low + 1 end
    local above = depth > 0 and redis.call('LRANGE', list, 0, depth - 1) or {}
    local nums = {}
    for i = 1, #above do nums[i] = tonumber(above[i]) end
    local asc, i, j = {}, #above, from -- both read from their oldest
    while i >= 1 or j < top do
      local a, b = nums[i], j < top and tonumber(ARGV[j]) or nil
      if b == nil or (a ~= nil and a < b) then asc[#asc + 1] = above[i]; i = i - 1
      elseif a == nil or b < a then asc[#asc + 1] = ARGV[j]; j = j + 1
      else asc[#asc + 1] = above[i]; i = i - 1; j = j + 1 end
    end
    redis.call('LTRIM', list, depth, -1)
    for k = 1, #asc, 1000 do
      len = redis.call('LPUSH', list, unpack(asc, k, math.min(k + 999, #asc)))
    end
  else
    for k = low, top - 1 do -- a late id or two, each put in its place
      len = insert(list, tonumber(ARGV[k]), len)
    end
  end
end
if top <= n then
  for k = top, n, 1000 do
    len = redis.call('LPUSH', list, unpack(ARGV, k, math.min(k + 999, n)))
  end
end
return capped(list, idx, prefix, keep, chunk, len)

--- push_boost lib timeline
-- KEYS[1]: a home timeline list; KEYS[2]: its archive index; KEYS[3]:
-- the owner's user hash; KEYS[4]: whom the owner follows; KEYS[5]: the
-- boosts their home got. ARGV: keep, chunk, the chunk key prefix, the
-- horizon and the field of the time the owner was last seen (as
-- push_ids), the boost's id, the boosted post's id, its author's id, the
-- owner's id. A boost goes onto the timeline in its place unless the
-- owner is away (-1), is the post's author or follows them (they have
-- the post), or their home got another boost of the post first (0);
-- the boosts the home got are cut to keep, as the list is. It returns
-- the list's length.
local list, idx = KEYS[1], KEYS[2]
local keep, chunk, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local seen = tonumber(redis.call('HGET', KEYS[3], ARGV[5]))
if seen and seen < tonumber(ARGV[4]) then return -1 end
local id = tonumber(ARGV[6])
if ARGV[8] == ARGV[9] or redis.call('ZSCORE', KEYS[4], ARGV[8]) then return 0 end
local first = tonumber(redis.call('ZSCORE', KEYS[5], ARGV[7]))
if first and first ~= id then return 0 end
redis.call('ZADD', KEYS[5], id, ARGV[7])
redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -keep - 1)
local len = redis.call('LLEN', list)
local tail = at(list, -1)
if len == 0 then
  len = redis.call('LPUSH', list, id)
elseif id < tail and chunk > 0 then
  len = archived(list, idx, prefix, id, len)
else
  len = insert(list, id, len)
end
return math.max(capped(list, idx, prefix, keep, chunk, len), 1)

--- fix_ids lib timeline
-- KEYS[1]: a home timeline list; KEYS[2]: its archive index; KEYS[3],
-- for a redelivery: the owner's user hash. ARGV: keep, chunk (0: none;
-- then the list is cut at keep), the chunk key prefix, the horizon and
-- the field of the time the owner was last seen (as push_ids), then ids
-- that may have been pushed onto the list's head without a look
-- (kernel.Deliver), out of place. The entries from the head down to the
-- deepest copy of them are taken off and put back, with the ids, each
-- in its place, without repeats; then the list is archived or cut as
-- push_ids does. Without ids it only archives. It returns the list's
-- length, or -1 for an owner away (nothing done).
local list, idx = KEYS[1], KEYS[2]
local keep, chunk, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
if KEYS[3] then
  local seen = tonumber(redis.call('HGET', KEYS[3], ARGV[5]))
  if seen and seen < tonumber(ARGV[4]) then return -1 end
end
local deepest = -1
for k = 6, #ARGV do -- every copy in the list, so that none stays out of place
  local found = redis.call('LPOS', list, ARGV[k], 'COUNT', 0)
  if #found > 0 and found[#found] > deepest then deepest = found[#found] end
end
local pool = {}
if deepest >= 0 then
  for _, v in ipairs(redis.call('LRANGE', list, 0, deepest)) do pool[#pool + 1] = tonumber(v) end
  redis.call('LTRIM', list, deepest + 1, -1)
end
for k = 6, #ARGV do pool[#pool + 1] = tonumber(ARGV[k]) end
table.sort(pool, function(a, b) return a > b end)
local len = redis.call('LLEN', list)
local last
for _, id in ipairs(pool) do -- the newest first, so that pushes at the tail keep the order
  if id ~= last then
    if len == 0 then
      len = redis.call('RPUSH', list, id)
    elseif id < at(list, -1) then
      if chunk > 0 then
        len = archived(list, idx, prefix, id, len)
      elseif len < keep then
        len = redis.call('RPUSH', list, id)
      end
    else
      len = insert(list, id, len)
    end
    last = id
  end
end
return capped(list, idx, prefix, keep, chunk, len)

--- merge_ids lib timeline
-- KEYS[1]: a home timeline list; KEYS[2]: its archive index. ARGV: keep,
-- chunk, the chunk key prefix, then the ids, descending.
local list, idx = KEYS[1], KEYS[2]
local keep, chunk, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local cur = redis.call('LRANGE', list, 0, -1)
local floor = 0
if #cur > 0 and redis.call('EXISTS', idx) == 1 then floor = tonumber(cur[#cur]) end
local out, i, j = {}, 1, 4
while i <= #cur or j <= #ARGV do
  local a, b = tonumber(cur[i]), tonumber(ARGV[j])
  local v
  if b == nil or (a ~= nil and a > b) then v = cur[i]; i = i + 1
  elseif a == nil or b > a then v = ARGV[j]; j = j + 1
  else v = cur[i]; i = i + 1; j = j + 1 end
  if tonumber(v) < floor then break end
  if #out == 0 or tonumber(out[#out]) ~= tonumber(v) then out[#out + 1] = v end
end
redis.call('DEL', list)
for k = 1, #out, 1000 do
  redis.call('RPUSH', list, unpack(out, k, math.min(k + 999, #out)))
end
return archive(list, idx, prefix, keep, chunk, #out)

--- page_ids lib timeline
-- KEYS[1]: the list; KEYS[2], for a home timeline: its archive index.
-- ARGV: the chunk key prefix, before, after (a cursor, 0 for none), n.
-- It returns how many of the ids came from the archive, and up to n
-- ids, newest first: those just older than before, those just newer
-- than after, or the newest. Each step is a bisection or a range of a
-- list, so a page costs the same at any depth.
local list, idx, prefix = KEYS[1], KEYS[2], ARGV[1]
local before, after, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local len = redis.call('LLEN', list)
local tail = len > 0 and at(list, -1) or nil
local out, fromArchive = {}, 0
-- chunks returns the archive's chunk numbers newer (asc) or older than
-- the chunk scored score, nearest first (all of them for a nil score).
local function chunks(score, asc)
  if not idx then return {} end
  if asc then
    return redis.call('ZRANGEBYSCORE', idx, score and '(' .. score or '-inf', '+inf', 'LIMIT', 0, n + 1)
  end
  return redis.call('ZREVRANGEBYSCORE', idx, score and '(' .. score or '+inf', '-inf', 'LIMIT', 0, n + 1)
end
if after > 0 then
  -- gathered nearest first, so oldest first
  local function take(key, upto, archive) -- the entries of key above index upto
    local from = math.max(0, upto - (n - #out))
    if upto > from then
      local ids = redis.call('LRANGE', key, from, upto - 1)
      for i = #ids, 1, -1 do out[#out + 1] = ids[i] end
      if archive then fromArchive = fromArchive + #ids end
    end
  end
  if not idx or (tail and after >= tail) then
    take(list, place(list, after, len), false)
  else
    local c = redis.call('ZREVRANGEBYSCORE', idx, after, '-inf', 'LIMIT', 0, 1, 'WITHSCORES')
    local score
    if c[1] then
      local key = prefix .. c[1]
      take(key, place(key, after, redis.call('LLEN', key)), true)
      score = c[2]
    end
    for _, m in ipairs(chunks(score, true)) do
      if #out >= n then break end
      local key = prefix .. m
      take(key, redis.call('LLEN', key), true)
    end
    if #out < n then take(list, len, false) end
  end
  local desc = {}
  for i = #out, 1, -1 do desc[#desc + 1] = out[i] end
  return {fromArchive, desc}
end
-- from the first entry below before (the newest without a cursor)
local function take(key, from, archive)
  local ids = redis.call('LRANGE', key, from, from + n - #out - 1)
  for _, v in ipairs(ids) do out[#out + 1] = v end
  if archive then fromArchive = fromArchive + #ids end
end
local score, more = nil, idx ~= nil
if before == 0 or (tail and before > tail) then
  take(list, before == 0 and 0 or below(list, before, len), false)
elseif idx then
  local c = redis.call('ZREVRANGEBYSCORE', idx, '(' .. before, '-inf', 'LIMIT', 0, 1, 'WITHSCORES')
  if c[1] then
    local key = prefix .. c[1]
    take(key, below(key, before, redis.call('LLEN', key)), true)
    score = c[2]
  else
    more = false -- nothing older
  end
end
if more and #out < n then
  for _, m in ipairs(chunks(score, false)) do
    if #out >= n then break end
    take(prefix .. m, 0, true)
  end
end
return {fromArchive, out}

--- drop_ids
-- drop_ids takes the ids ARGV out of the list KEYS[1] (every entry of
-- each) in one pass, the rest kept in order, and returns how many it
-- took out: what an LREM per id would do, at the cost of one.
local drop = {}
for _, id in ipairs(ARGV) do drop[id] = true end
local all = redis.call('LRANGE', KEYS[1], 0, -1)
local kept = {}
for _, v in ipairs(all) do
  if not drop[v] then kept[#kept + 1] = v end
end
if #kept == #all then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #kept, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(kept, i, math.min(i + 999, #kept)))
end
return #all - #kept

--- trim_archive
-- KEYS[1]: a home timeline's archive index. ARGV: the chunk key prefix,
-- how many chunks to keep, the most to drop. It drops the oldest chunks
-- past those kept, at most that many, and returns how many chunks and
-- how many ids went.
local idx, prefix = KEYS[1], ARGV[1]
local drop = math.min(redis.call('ZCARD', idx) - tonumber(ARGV[2]), tonumber(ARGV[3]))
if drop <= 0 then return {0, 0} end
local old = redis.call('ZRANGE', idx, 0, drop - 1)
local ids = 0
for _, n in ipairs(old) do
  ids = ids + redis.call('LLEN', prefix .. n)
  redis.call('DEL', prefix .. n)
end
redis.call('ZREMRANGEBYRANK', idx, 0, drop - 1)
return {#old, ids}

--- trend_add
-- KEYS[1]: a shard of the trends; KEYS[2]: its epoch. ARGV: a folded
-- tag, the unix time of its post, the half-life (seconds), a sign (1 or
-- -1: a deleted post takes its weight back), how many tags a shard
-- keeps. A tag's score is the sum of 2^((post time - epoch) / half-life)
-- over its posts: ranking by it ranks by counts that halve every
-- half-life, without rewriting the scores as time passes. Before the
-- weights grow past what a double holds, the shard is rescaled and its
-- epoch moved.
local t, h, sign, keep = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local epoch = tonumber(redis.call('GET', KEYS[2]))
if not epoch then
  epoch = t
  redis.call('SET', KEYS[2], epoch)
end
if (t - epoch) / h > 900 then
  redis.call('ZUNIONSTORE', KEYS[1], 1, KEYS[1], 'WEIGHTS', 2 ^ ((epoch - t) / h))
  epoch = t
  redis.call('SET', KEYS[2], epoch)
end
local score = tonumber(redis.call('ZINCRBY', KEYS[1], sign * 2 ^ ((t - epoch) / h), ARGV[1]))
if score <= 2 ^ ((t - epoch) / h) * 1e-9 then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
if sign > 0 and redis.call('ZCARD', KEYS[1]) > keep then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -keep - 1)
end
return 1

--- complete_add
-- KEYS[1]: a shard of the completion index. ARGV: a folded tag, the tag
-- as written, a change of its count. The entry "<folded>:<count>:<as
-- first written>" is replaced by one with the new count, or removed at
-- zero (the seed's completion with frequency).
local prefix = ARGV[1] .. ':'
local cur = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. prefix, '+', 'LIMIT', 0, 1)[1]
local n, written = 0, ARGV[2]
if cur and string.sub(cur, 1, #prefix) == prefix then
  local count, first = string.match(string.sub(cur, #prefix + 1), '^(%d+):(.*)$')
  if count then n, written = tonumber(count), first end
  redis.call('ZREM', KEYS[1], cur)
end
n = n + tonumber(ARGV[3])
if n > 0 then redis.call('ZADD', KEYS[1], 0, prefix .. n .. ':' .. written) end
return n

--- claim_name
-- KEYS: the name index, its folded twin, the name's reservation. ARGV:
-- the name, folded, the user id. Returns 1 if claimed, 0 if taken, -1
-- if reserved (the account that had it was deleted a while ago).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
  return 0
end
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1

--- unclaim_name
-- KEYS: the name index, its folded twin and, for a deleted account, the
-- name's reservation. ARGV: the name, folded, the user id and, with a
-- reservation, how long it lasts (ms). The name goes if it is still the
-- user's; the reservation is made unless one is there already.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[3] then redis.call('HDEL', KEYS[1], ARGV[1]) end
if redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[3] then redis.call('HDEL', KEYS[2], ARGV[2]) end
if KEYS[3] then redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4], 'NX') end
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
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1

--- rank_page
-- KEYS[1]: a sorted set read newest (highest score) first. ARGV: a
-- member, n, and "before" or "after". Returns {newer, older, members
-- with their scores} for the n members just after (older than) or just
-- before (newer than) the given one, by rank: ties of score keep their
-- order. A member no longer in the set gives {1, 0, {}}: an empty page
-- past the end, whose reader goes back to the start.
local r = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not r then return {1, 0, {}} end
local n = tonumber(ARGV[2])
if ARGV[3] == 'before' then
  local page = redis.call('ZREVRANGE', KEYS[1], r + 1, r + n, 'WITHSCORES')
  local older = redis.call('ZCARD', KEYS[1]) > r + 1 + n and 1 or 0
  return {1, older, page}
end
local from = math.max(r - n, 0)
if r == 0 then return {0, 1, {}} end
return {from > 0 and 1 or 0, 1, redis.call('ZREVRANGE', KEYS[1], from, r - 1, 'WITHSCORES')}

--- lib fields
-- setFields sets each field of the hash key to its value, or removes it
-- for an empty value, from the field-value pairs of ARGV that begin at
-- index from. Unless the hash does not exist: then it writes nothing and
-- returns 0.
local function setFields(key, from)
  if redis.call('EXISTS', key) == 0 then return 0 end
  for i = from, #ARGV, 2 do
    if ARGV[i + 1] == '' then
      redis.call('HDEL', key, ARGV[i])
    else
      redis.call('HSET', key, ARGV[i], ARGV[i + 1])
    end
  end
  return 1
end

--- update_fields lib fields
-- KEYS[1]: a hash. ARGV: field-value pairs, set at once (see setFields).
return setFields(KEYS[1], 1)

--- edit_post lib fields
-- KEYS[1]: a post hash. ARGV: the field of the time of its last edit,
-- the value it must still have ("" for none: never edited), then
-- field-value pairs (see setFields). Returns 0 if the post does not
-- exist, -1 if it was edited meanwhile (nothing written), else 1.
if redis.call('EXISTS', KEYS[1]) == 1 and (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then return -1 end
return setFields(KEYS[1], 3)

--- end_sessions lib fields
-- KEYS[1]: a user hash; KEYS[2]: the user's sessions. ARGV: the field of
-- the auth secret, the session to keep ("" for none), "1" to keep the
-- auth secret too (the session kept is that secret's), then field-value
-- pairs of the user hash to write at the same time (see setFields).
-- Every other session ends at once; the one kept keeps its record and
-- the key its expiry. Returns whether the user hash exists.
local kept = ARGV[2] ~= '' and redis.call('HGET', KEYS[2], ARGV[2])
local ttl = redis.call('PTTL', KEYS[2])
redis.call('DEL', KEYS[2])
if kept then
  redis.call('HSET', KEYS[2], ARGV[2], kept)
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
if ARGV[3] ~= '1' then redis.call('HDEL', KEYS[1], ARGV[1]) end
return setFields(KEYS[1], 4)

--- legacy_seen
-- KEYS[1]: a user hash; KEYS[2]: the user's sessions. ARGV: the field of
-- the auth secret, the secret, its session's id, the session's record,
-- its lifetime (seconds). Records the secret of before sessions per
-- device as a session, first seen now, unless it is no longer the
-- user's or is recorded already; the sessions then live at least as long
-- as it. Returns whether it recorded it.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 1

--- touch_session
-- KEYS[1]: a user's sessions. ARGV: a session's id, its new record,
-- written unless the session ended meanwhile (which it must not undo).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1

--- rate_take
-- The generic cell-rate algorithm. KEYS[1]: a subject's theoretical
-- arrival time, unix ms (absent: none pending). ARGV: the interval
-- between actions at the rate and the rate's period, ms. The action
-- passes unless the subject is more than period - interval ahead of
-- Redis's clock; if it passes, the time moves on by one interval (and
-- the key expires when it falls behind the clock). Returns {passed (1
-- or 0), ms until the next action passes (0 if it did), ms the subject
-- is ahead of the clock after this one}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1])) or now, now)
local tolerance = period - interval
if tat - now > tolerance then
  return {0, tat - now - tolerance, tat - now}
end
tat = tat + interval
redis.call('SET', KEYS[1], tat, 'PX', tat - now)
return {1, 0, tat - now}

--- begin_deletion
-- KEYS[1]: a user hash; KEYS[2]: the state of the account's deletion;
-- KEYS[3]: its lease; KEYS[4…]: the other keys that let one into the
-- account (its API tokens). ARGV: the runner's lease token, the lease's
-- validity (ms), then the state's field-value pairs. Unless a deletion
-- is under way already (it returns 0), it writes the state, gives the
-- runner the lease and deletes the user hash (its auth secret and
-- password) and the other keys, at once (it returns 1).
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[1], unpack(KEYS, 4))
return 1

--- hold_lease
-- KEYS[1]: a lease. ARGV: a runner's token, the validity (ms). A free
-- lease is taken, the runner's own extended (it returns 1); another
-- runner's is left alone (it returns 0).
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1

--- drop_lease
-- KEYS[1]: a lease. ARGV: a runner's token. The lease is freed if the
-- runner holds it.
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1

--- mark_sync
-- KEYS[1]: the sorted set of who marked a post (favourited_by,
-- reblogged_by); KEYS[2]: the post's counts. ARGV: a user, the unix ms of the user's mark ("":
-- the user has no mark) and the field of counts that counts the marks.
-- The set is brought in line with the mark and the count with the set,
-- so that running it again changes nothing. It returns {1 if the user
-- was added now (else 0), the count}.
local added = 0
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  added = redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
end
local n = redis.call('ZCARD', KEYS[1])
if n == 0 then
  redis.call('HDEL', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[2], ARGV[3], n)
end
return {added, n}

--- notify_once
-- KEYS[1]: a user's notifications; KEYS[2], KEYS[3]: the user's blocks
-- and mutes. ARGV: the actor, the unix ms, the notification, how many
-- the user keeps. The notification is added unless the user blocked or
-- muted the actor or has it already (it returns 0); then the oldest
-- beyond the cap are dropped (it returns 1).
if redis.call('ZSCORE', KEYS[2], ARGV[1]) or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[3]) == 0 then return 0 end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
return 1

--- mark_add
-- KEYS[1]: a user's sorted set of marked posts (favourites, bookmarks,
-- pins). ARGV: a post, the unix ms now. Unless the post is marked
-- already (it returns 0), it is added, scored now, or 1 ms after the
-- newest mark if that is not earlier, so that marks keep the order they
-- were made in, even within one millisecond (it returns 1).
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local at = tonumber(ARGV[2])
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= at then at = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[1], at, ARGV[1])
return 1

--- drop_mark
-- KEYS[1]: a hash of marks. ARGV: a field, a value. The field goes if it
-- holds the value (not one set since); it returns 1 if it went.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0

--- drop_conversation_post
-- KEYS[1]: the posts of one of a user's conversations; KEYS[2]: the
-- user's conversations; KEYS[3]: how far the user read them. ARGV: a
-- post, the conversation. The post leaves the conversation, which is
-- then scored by its newest post left, or, with none left, leaves the
-- list.
redis.call('ZREM', KEYS[1], ARGV[1])
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if newest[2] then
  redis.call('ZADD', KEYS[2], 'XX', newest[2], ARGV[2])
  return 1
end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 0

--- add_capped
-- KEYS[1]: a sorted set of members scored by when they came. ARGV: a
-- member, the unix ms now, the most members the set may hold. A member
-- already in keeps its score (it returns 0); else it is added (1),
-- scored now or 1 ms after the newest if that is not earlier (as
-- mark_add), unless the set is full (-1).
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
local at = tonumber(ARGV[2])
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= at then at = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[1], at, ARGV[1])
return 1

--- media_update
-- KEYS[1]: a user's media hash. ARGV: the media id (its field), the
-- field that counts bytes, a JSON object of the record's fields to set,
-- one of its attachment's ("a") fields to set, the bytes to add to the
-- count and the quota (0: none). A record that is gone is not brought
-- back (0); bytes that would pass the quota write nothing (-1).
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return 0 end
rec = cjson.decode(rec)
local add, quota = tonumber(ARGV[5]), tonumber(ARGV[6])
if add > 0 and quota > 0 and tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0') + add > quota then
  return -1
end
for k, v in pairs(cjson.decode(ARGV[3])) do rec[k] = v end
for k, v in pairs(cjson.decode(ARGV[4])) do rec.a[k] = v end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(rec))
if add ~= 0 then redis.call('HINCRBY', KEYS[1], ARGV[2], add) end
return 1

--- media_drop
-- KEYS[1]: a user's media hash. ARGV: the media id and the field that
-- counts bytes. Removes the record and takes its bytes off the count;
-- returns 1, or 0 if it was gone.
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return 0 end
local b = cjson.decode(rec).a.b
redis.call('HDEL', KEYS[1], ARGV[1])
if type(b) == 'number' and b > 0 then redis.call('HINCRBY', KEYS[1], ARGV[2], -b) end
return 1
