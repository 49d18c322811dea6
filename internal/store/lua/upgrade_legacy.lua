if redis.call('HGET', KEYS[1], 'password') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'password_hash', ARGV[2])
redis.call('HDEL', KEYS[1], 'password')
return 1
