if redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[4], ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[3])
return 1
