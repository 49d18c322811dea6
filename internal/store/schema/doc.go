// Package schema is retwis's Redis layout: it spells every key name and
// hash field, and nothing else does. The packages of the store read and
// write through it (the kernel, the index builders, the online layers
// accounts, posts and store, and the background packages), and so do
// the offline writer (package bulk), the migration of older layouts and
// cmd/retwis, for the names of its distributed locks.
//
// The layout grew from the one of the Retwis tutorial. Its keys are kept
// where they scale, each user's with the user id as hash tag
// (user:{<id>}, posts:{<id>}…), so that all of a user's keys share one
// slot and a request about one user touches one master; the keys that
// every request shared (users, auths) are spread over 256 shards, and the
// delivery queue over 16, each in a slot of its own, so that on Redis
// Cluster no master holds a key every request needs. A session token (the
// auth cookie) is "<user id>:<secret>", so that authentication reads the
// user's slot alone (its sessions, by the secret's SHA-256, and the user
// hash); the auths shards serve the cookies of the tutorial's kind (the
// bare secret) issued before. The global timeline stays one
// list (every post pushes onto it: one cheap command for the master of
// its slot; a push that fails is made up for by the post's delivery job),
// and so do users_by_time (written only at sign-up) and recent_boosts
// (one capped XADD per boost or take-back). A home timeline
// keeps its older entries in an archive of chunks, as the timeline
// design notes do, in the user's slot: a page at any depth reads one
// list or chunk or two.
//
// The secondary indexes of conversations (version 4) are keyed by what
// they index: a tag's keys share the slot of the tag, a user's mentions
// and notifications the user's, a post's replies the post's; a post's
// delivery job writes them, one command per key, so that a post with
// many tags and mentions touches many slots but each command one. The
// two indexes that are global by nature, the trends and the tag
// completion, are spread over 16 shards each (by tag, and by the tag's
// first letter so that a prefix reads one shard): every tagged post
// writes one shard of each, so on a cluster no master takes the writes
// of every post, and a read of the trending tags reads the 16 (cached
// on the client, one round trip when cold). store.Store.Migrate brings a database of the
// original PHP Retwis (or an older retwis) to this layout once, on first
// start; retwis owns it from then on. Keys the tutorial lacks are marked
// "retwis".
//
//	key                  type    contents
//	-------------------  ------  ----------------------------------------------
//	next_user_id         string  counter; INCR gives the next user id to
//	                             tools that have no id generator (servers
//	                             make time-ordered ids, internal/snowflake)
//	user:{<id>}          hash    username, auth (the auth secret of before
//	                             sessions per device, which every device of
//	                             the account shared; removed when it ends),
//	                             password_hash (argon2id, PHC string);
//	                             password (plaintext, only in accounts of the
//	                             original Retwis until their first login),
//	                             seen (unix time last seen, which fanout
//	                             checks; retwis), rebuild ("1" while the
//	                             home timeline awaits a rebuild after a long
//	                             absence; retwis), celebrity ("1" once the
//	                             user has had more followers than the
//	                             threshold: not fanned out; retwis),
//	                             notified (unix ms of the newest
//	                             notification when the user last read
//	                             them; retwis), display_name and bio (as
//	                             the user set them, absent when not;
//	                             retwis), joined (unix time of sign-up,
//	                             from version 7; retwis), suspended (unix
//	                             time of the suspension, while it lasts;
//	                             retwis), role ("moderator", or absent;
//	                             retwis), filtered ("1" once the user made
//	                             a filter: their lists read filters:{<id>};
//	                             retwis), avatar and header (the picture
//	                             uploaded, JSON: one attachment; retwis)
//	users:{<shard>}      hash    username -> user id (exact case), for the
//	                             names whose folded form falls in the shard
//	                             (FNV-1a mod 256, two hex digits); the
//	                             tutorial's users hash, spread (retwis)
//	users:{<shard>}:folded
//	                     hash    lower-case username -> user id, in the slot
//	                             of its shard, so one script claims a name
//	                             in both (retwis)
//	users:{<shard>}:reserved:<folded>
//	                     string  the id of the deleted account that had the
//	                             name (folded), expiring when the name may
//	                             be registered again (30 days by default,
//	                             --name-reserve); in the slot of the name's
//	                             shard, so that the script that claims a
//	                             name checks it (retwis)
//	auths:{<shard>}      hash    auth secret -> user id, for the secrets of
//	                             the shard; the tutorial's auths, spread,
//	                             for the cookies of its kind (sessions
//	                             carry the user id and are not mapped);
//	                             an entry goes when its secret ends
//	sessions:{<id>}      hash    user <id>'s sessions, one per login: the
//	                             SHA-256 (hex) of each session's secret ->
//	                             JSON (created, used: unix time of the last
//	                             use, recorded at most every 5 minutes;
//	                             idle and expires: unix times it ends
//	                             unless used before, and at the latest;
//	                             device and addr: what the browser said it
//	                             was and its address, 64 bytes each at
//	                             most; legacy: the record of the user
//	                             hash's auth secret, from its first use
//	                             since); 100 sessions at most, the oldest
//	                             ended first; expired ones removed when
//	                             met; the key expires with its newest
//	                             session's absolute expiry (retwis)
//	users_by_time        zset    usernames scored by registration unix time
//	followers:{<id>}     zset    ids of the users following <id>, scored by
//	                             the unix time of the follow
//	following:{<id>}     zset    ids of the users <id> follows, likewise
//	next_post_id         string  counter; likewise for post ids
//	post:<id>            hash    user_id, time (unix seconds), body;
//	                             username (the author's, copied when posted,
//	                             so that pages need not look it up; retwis),
//	                             fanout ("0" for a post not fanned out, a
//	                             celebrity's; retwis), delivered (unix ms
//	                             when its delivery job, or a boost's boost
//	                             job, was done; retwis);
//	                             what it said of its conversations when
//	                             posted (retwis): tags (as written, up to
//	                             10, space-separated), mentions ("<id>:<name>"
//	                             of each user it mentions who existed,
//	                             space-separated), reply_to (the post it
//	                             answers), reply_user ("<id>:<name>" of that
//	                             post's author), ancestors (the posts above
//	                             it, nearest first, up to 50,
//	                             comma-separated), so that deleting it can
//	                             find every index it entered (an edit's
//	                             job rewrites tags and mentions once its
//	                             indexes follow the new text); warning
//	                             (its content warning, one line; absent:
//	                             none; retwis); edited (unix ms of its last
//	                             edit; absent: never) and history (its
//	                             earlier versions, oldest first, at most
//	                             20: JSON [{"body", "warning", "time" (unix
//	                             ms)}]; absent: never edited) (retwis);
//	                             visibility ("unlisted", "private" or
//	                             "direct"; absent: public; retwis); media
//	                             (its pictures, JSON attachments),
//	                             sensitive ("1": shown behind the warning)
//	                             and card (its link's preview, JSON) (retwis); for a
//	                             boost (a post of its own, of the
//	                             booster's, with an empty body, on no index
//	                             but its booster's posts and home
//	                             timelines): reblog_of (the post it
//	                             boosts) and reblog_user ("<id>:<name>" of
//	                             that post's author) (retwis)
//	posts:{<id>}         list    home timeline of user <id>: post ids in
//	                             descending order, no duplicates (own posts
//	                             and followed users'); it keeps at least
//	                             the cap (800 by default) and moves its
//	                             oldest 200 to the archive once it holds
//	                             200 more
//	archive:{<id>}       zset    the archive of that timeline's older
//	                             entries: chunk numbers (0, 1, … from the
//	                             oldest), each scored by the oldest post id
//	                             of its chunk (retwis; the design notes'
//	                             list of lists)
//	archive:{<id>}:<n>   list    chunk n of the archive: post ids in
//	                             descending order, all older than the list's
//	                             and than chunk n+1's (retwis)
//	user_posts:{<id>}    zset    ids of the posts written by <id>, scored by
//	                             post id (retwis; profiles, follow backfill)
//	timeline             list    global timeline: the newest 1000 post ids
//	recent_boosts        stream  the newest boosts and take-backs of boosts
//	                             (about 1000): kind (boost or unboost),
//	                             post (the boost), author (the booster), of
//	                             (the post boosted), as their job, written
//	                             beside it in a slot of its own, so that
//	                             maintenance finds a job a failover lost
//	                             (retwis)
//	tag:{<tag>}          zset    the posts with a tag (by its folded form:
//	                             case and accents removed): post ids scored
//	                             by id (retwis; the tag page)
//	tag:{<tag>}:days     zset    the same posts by day, a composite index:
//	                             members "<YYYYMMDD>:<post id, 16 digits>"
//	                             all scored 0, so a day's posts are a
//	                             lexicographic range and ZLEXCOUNT counts
//	                             them (retwis; ?day= and the activity chart)
//	tag:{<tag>}:info     hash    name (the tag as first written) (retwis)
//	tag_followers:{<tag>}
//	                     zset    the users who follow the tag: user ids
//	                             scored by the unix time in microseconds
//	                             of the follow (retwis; the delivery of
//	                             its posts to their home timelines)
//	tags_followed:{<id>}
//	                     zset    the tags user <id> follows (folded),
//	                             scored likewise (retwis; at most 500)
//	tag:{<tag>}:authors:<YYYYMMDD>
//	                     hll     the authors of the tag's posts that day,
//	                             expiring 8 days after it began (retwis;
//	                             the accounts of the Tag's history)
//	mentions:{<id>}      zset    the posts that mention user <id>: post ids
//	                             scored by id (retwis)
//	direct:{<id>}        zset    the direct posts user <id> wrote or is
//	                             mentioned in: post ids scored by id
//	                             (retwis; the source of the conversations)
//	conversations:{<id>}
//	                     zset    user <id>'s direct conversations: the
//	                             conversation id (the root of the thread)
//	                             scored by the id of its newest post
//	                             (retwis; the Direct page, the API's
//	                             conversations)
//	conversations_read:{<id>}
//	                     zset    how far user <id> read each conversation:
//	                             its id scored by the newest post read
//	                             (unread while lower than in conversations)
//	                             (retwis)
//	conversation:{<id>}:<conversation>
//	                     zset    the direct posts of one conversation of
//	                             user <id>: post ids scored by id (retwis)
//	notifications:{<id>}
//	                     zset    user <id>'s newest 200 notifications,
//	                             scored by unix ms: "follow:<actor>",
//	                             "mention:<actor>:<post>",
//	                             "reply:<actor>:<post>", "update:<actor>:
//	                             <post>" (one per post edited, scored by
//	                             its last edit), "favourite:<actor>:<post>",
//	                             "reblog:<actor>:<post>" (retwis)
//	markers:{<id>}       hash    user <id>'s positions in their home
//	                             timeline and notifications (the API's
//	                             markers): "home", "notifications" (the
//	                             id last read), "<timeline>:version"
//	                             (saves), "<timeline>:at" (unix ms of
//	                             the last); "notifications" is written
//	                             with the user hash's notified (retwis)
//	domain_blocks:{<id>}
//	                     zset    the domains user <id> blocked (the
//	                             client API's domain blocks), scored by
//	                             when, unix ms: none is of an account
//	                             here (retwis does not federate) (retwis)
//	filters:{<id>}       hash    user <id>'s filters: "doc" (the list, as
//	                             JSON: titles, contexts, actions,
//	                             expiries, keywords, posts), "version"
//	                             (its writes) (retwis)
//	notification_policy:{<id>}
//	                     hash    user <id>'s notification policy:
//	                             for_not_following, for_not_followers,
//	                             for_new_accounts, for_private_mentions,
//	                             for_limited_accounts: "accept", "filter"
//	                             or "drop" (absent: accept) (retwis)
//	lists:{<id>}         zset    user <id>'s lists: list ids scored by
//	                             id (retwis)
//	list:{<id>}:<list>   hash    one of user <id>'s lists: title,
//	                             replies_policy (retwis)
//	list:{<id>}:<list>:members
//	                     set     the accounts in the list (retwis)
//	list:{<id>}:<list>:posts
//	                     zset    the list's timeline: its members' post
//	                             ids scored by id, pushed by delivery,
//	                             the newest 800 kept (retwis)
//	listed:{<id>}        set     the lists that hold user <id>,
//	                             "<owner>:<list>": the reverse index of
//	                             the members, read by delivery (retwis)
//	next_list_id         string  counter of list ids without an id
//	                             generator (retwis)
//	replies:{<post id>}  zset    the replies to a post: post ids scored by
//	                             id (retwis; the thread page)
//	counts:{<post id>}   hash    the counts of a post's interactions:
//	                             favourites, reblogs (how many boosts)
//	                             (absent: 0), in the slot of its replies
//	                             (retwis)
//	favourited_by:{<post id>}
//	                     zset    who favourited a post: user ids scored by
//	                             unix ms, brought in line with the users'
//	                             favourites by the favourite job (retwis)
//	favourites:{<id>}    zset    the posts user <id> favourited (the truth
//	                             of favourites): post ids scored by unix ms,
//	                             each at least 1 ms after the one before
//	                             (retwis; the Favourites page)
//	bookmarks:{<id>}     zset    the posts user <id> bookmarked, likewise
//	                             (retwis; the Bookmarks page)
//	pins:{<id>}          zset    the posts user <id> pinned to the top of
//	                             their profile, at most 5 of their own,
//	                             likewise (retwis)
//	reblogged_by:{<post id>}
//	                     zset    who boosted a post: user ids scored by
//	                             the unix ms of the boost (retwis)
//	boosts:{<id>}        hash    what user <id> boosted: post id -> the
//	                             boost's id; the truth of who boosted, which
//	                             the check holds the two above to (retwis)
//	home_boosts:{<id>}   zset    the boosts user <id>'s home timeline got:
//	                             the boosted post's id scored by the
//	                             boost's, so that a post comes once however
//	                             many boost it (the first boost wins); cut
//	                             to the home timeline's cap (retwis)
//	trends:{<n>}         zset    shard n (00–0f) of the tag trends: folded
//	                             tags (the tags whose FNV-1a falls in it)
//	                             scored by their posts' decayed count, the
//	                             sum of 2^((post time − epoch) / 3 h); the
//	                             heaviest 5000 are kept (retwis)
//	trends:{<n>}:epoch   string  that shard's epoch, unix time, moved
//	                             forward (and the scores rescaled) before
//	                             they outgrow a double (retwis)
//	trends:statuses:{<nn>}
//	                     zset    shard nn (of 16, by post id) of the
//	                             trending posts: post ids scored by the
//	                             decayed count of the replies, favourites
//	                             and boosts they got, as the tag trends
//	                             (retwis; GET /api/v1/trends/statuses)
//	trends:statuses:{<nn>}:epoch
//	                     string  its epoch (unix time) (retwis)
//	tags:complete:{<n>}  zset    shard n (00–0f) of the tag completion, by
//	                             the FNV-1a of the tag's first letter:
//	                             members "<folded>:<count>:<as first
//	                             written>" all scored 0, a lexicographic
//	                             index ranked by count when read (retwis)
//	people:{<n>}         zset    shard n (00–0f) of the people search, by
//	                             the FNV-1a of the term's first letter (as
//	                             the tag completion): members "<term>:<user
//	                             id>" all scored 0, one per term a user is
//	                             found by (the folded username and words of
//	                             the display name), a lexicographic index
//	                             ranked by follower count when read (retwis)
//	reindex:posts        hash    master address -> SCAN cursor (or "done")
//	                             of the indexing of the posts written before
//	                             version 4; since (unix time the migration
//	                             asked for it) (retwis)
//	reindex:people       hash    likewise, of the entering of the users
//	                             registered before version 5 in the people
//	                             search (retwis)
//	reindex:graph        hash    likewise, of the entering of the follows
//	                             made before version 6 in the graph (retwis)
//	reindex:explore      hash    likewise, of the entering of the users
//	                             registered before version 7 in the
//	                             directory (retwis)
//	reindex:authors      hash    likewise, of the copying of their
//	                             authors' usernames into the posts
//	                             written before version 8 (retwis)
//	reindex:conversations
//	                     hash    likewise, of the entering of the direct
//	                             posts written before version 8 in their
//	                             conversations (retwis)
//	reindex:activity     hash    likewise, of the entering of the users
//	                             registered before version 9 in
//	                             users_by_activity (retwis)
//	check:<scope>:<kind>:<n>
//	                     hash    the progress of walk n of a check of a
//	                             kind of index (check.Run): master
//	                             address -> SCAN cursor (or "done"); scope
//	                             "cli" for retwis check, "background" for
//	                             maintenance's; removed once the check is
//	                             done (retwis)
//	check:rotation       list    the kinds of index that maintenance's
//	                             check takes in turn, rotated with LMOVE
//	                             each round (retwis)
//	trim:history         hash    master address -> SCAN cursor (or "done")
//	                             of maintenance's walk over the archives,
//	                             dropping the chunks past --home-history;
//	                             deleted when a walk ends (retwis)
//	explore              zset    the directory of accounts, a
//	                             multi-dimensional index: user ids scored by
//	                             the Z-order code (internal/zorder) of their
//	                             follower count (20 bits), posts of the last
//	                             seven days (16 bits) and day of sign-up
//	                             (days since 1970, 17 bits), bits
//	                             interleaved, so that a box of the three
//	                             ranges is a few ranges of scores. One key,
//	                             as the global timeline: a deletion, a
//	                             follow, a sign-up and maintenance (for the
//	                             authors of delivered posts) rewrite a
//	                             user's entry with one ZADD (retwis)
//	users_by_activity    zset    user ids scored by the id of their newest
//	                             post (ids grow with time), with their entries
//	                             in explore: the client API's directory,
//	                             most recently active first (retwis)
//	explore:stale        set     the users whose entries in explore await a
//	                             rewrite: the authors of the posts
//	                             delivered since maintenance's last round
//	                             (retwis)
//	graph:{<id>}         zset    user <id>'s part of the hexastore of
//	                             relations between users (follows,
//	                             mentions, replies), scored 0: for each
//	                             triple with <id> as subject,
//	                             "spo:<id>:<rel>:<object>", and as object,
//	                             "ops:<id>:<rel>:<subject>"; a lexicographic
//	                             index in the user's slot, so that every
//	                             query reads one slot. Of the seed's six
//	                             permutations, the predicate-first two
//	                             would be one key every follow writes, and
//	                             "sop"/"osp" (what links two users) are
//	                             answered by asking for the three possible
//	                             relations: neither is worth its memory
//	                             (retwis)
//	suggestions:{<id>}   string  the users to follow computed for <id>,
//	                             "<user id>:<followed by>" separated by
//	                             commas; expires after 10 minutes, removed
//	                             when <id> follows or unfollows (retwis)
//	suggestions_dismissed:{<id>}
//	                     zset    the users user <id> dismissed from its
//	                             users to follow, for good, scored by the
//	                             unix time of the dismissal; the newest
//	                             1000 kept (retwis)
//	celebrities_followed:{<id>}
//	                     set     the celebrities <id> follows, whose posts
//	                             the home timeline merges when read (retwis)
//	deliveries:{<n>}     stream  shard n (00–0f) of the delivery queue, which
//	                             takes the jobs of the authors whose id falls
//	                             in it (FNV-1a mod 16), or of any author
//	                             when that shard's master cannot be
//	                             reached: kind (deliver, undeliver,
//	                             celebrate, edit, favourite: post and the
//	                             user who favourited it or took it back,
//	                             in author; boost, unboost, unboosts),
//	                             post, author, and of (a boost's jobs: the
//	                             post it boosts); every post has a deliver
//	                             job, every edit an edit job, every boost
//	                             a boost job; consumer group
//	                             "deliverers" (retwis)
//	deliveries:{<n>}:progress
//	                     hash    entry id -> followers done, for long jobs
//	                             (retwis)
//	deliveries:{<n>}:snapshots
//	                     hash    entry id -> author id, for each job that
//	                             made a snapshot below, so that maintenance
//	                             can remove the snapshots of jobs that
//	                             vanished (retwis)
//	deliveries:{<n>}:follows
//	                     zset    "<follower>:<followee>:<unix ns>" -> unix
//	                             ms: a follow or unfollow under way, written
//	                             before its first write and removed once it
//	                             is complete; maintenance completes those
//	                             whose request failed (retwis)
//	deliveries:{<n>}:unpublish
//	                     zset    "<post id>:<author id>" -> unix ms: a
//	                             post whose publication failed and could
//	                             not be taken back at once; maintenance
//	                             takes it back (retwis)
//	followers:{<id>}:job:<job id>
//	                     zset    snapshot of followers:{<id>} that a delivery
//	                             job of more than one batch walks; deleted
//	                             when the job is done (retwis)
//	idempotency:{<id>}:<key>
//	                     string  the post id user <id> published with an
//	                             idempotency key ("0" while publishing),
//	                             kept for a day (retwis)
//	idempotency:{<id>}:edit:<post id>:<key>
//	                     string  the post user <id> edited with an
//	                             idempotency key, kept for a day, so that
//	                             the edit sent again is applied once
//	                             (retwis)
//	app:{<client id>}    hash    an API client app: name, website,
//	                             redirect_uris (one per line), scopes,
//	                             secret (SHA-256 of the client secret, hex),
//	                             created (unix time) (retwis)
//	oauth_code:{<hash>}  string  the grant an authorization code stands
//	                             for, by the SHA-256 of the code (hex):
//	                             JSON (app, user, scopes, redirect URI,
//	                             PKCE challenge); expires after 10
//	                             minutes, taken once with GETDEL (retwis)
//	tokens:{<id>}        hash    user <id>'s API access tokens (id 0:
//	                             apps' own), SHA-256 of each token's
//	                             secret (hex) -> JSON (app, app name,
//	                             scopes, created); a token is "<id>.<secret>",
//	                             so authentication reads one slot (retwis)
//	tokens_used:{<id>}   hash    the same hashes -> unix time each token was
//	                             last used, recorded at most once a minute
//	                             apart from tokens:{<id>} so that it does
//	                             not invalidate the cached records (retwis)
//	media:{<id>}         hash    user <id>'s media: media id -> JSON
//	                             record (the attachment: files' extensions,
//	                             sizes, bytes, blurhash, alt text, focus;
//	                             state, purpose, created, the post it is
//	                             attached to), and "bytes" -> what their
//	                             files weigh, counted against the quota
//	                             (retwis)
//	media_pending        zset    "<owner>:<media id>" of the media upkeep
//	                             looks at, scored by when it is due: each
//	                             upload (a day later), a deleted post's and
//	                             a replaced avatar's (at once), a deleted
//	                             account's ("<owner>:0") (retwis)
//	next_media_id        string  the counter of media ids without an id
//	                             generator (retwis)
//	check:media          hash    master address -> SCAN cursor (or "done")
//	                             of the media check's walk over the media
//	                             hashes; deleted when a check begins and
//	                             ends (retwis)
//	push:{<id>}          hash    user <id>'s Web Push subscriptions, one
//	                             per API token: the token's hash (as in
//	                             tokens:{<id>}) -> JSON (endpoint, keys,
//	                             alerts, policy, the access token for the
//	                             payload); removed with the token (retwis)
//	push:vapid           string  the instance's VAPID key pair, JSON,
//	                             written once (SET NX) (retwis)
//	push:jobs:{<n>}      stream  shard n (00-03) of the push queue, by
//	                             user: a job per notification of a user
//	                             with a subscription (user, note, at);
//	                             consumer group "pushers" (retwis)
//	card:<hash>          string  the preview of the page at a URL, by
//	                             the URL's SHA-256 (hex): JSON
//	                             (retwis.Card) or "none"; a day, an hour
//	                             after a failure (retwis)
//	cards:jobs:{<n>}     stream  shard n (00-03) of the queue of link
//	                             previews, by post: a job per delivered
//	                             post with a link (post, author, url);
//	                             consumer group "carders" (retwis)
//	suspended            set     the ids of suspended accounts, whose posts
//	                             nobody sees, read with every page's posts
//	                             through the client-side cache (retwis)
//	audit                stream  the audit log of moderation actions, about
//	                             100,000 kept: actor ("@<moderator>" or
//	                             "cli:<login>"), action, target, reason
//	                             (retwis)
//	reports              stream  the open reports, about 10,000 kept: by
//	                             (the reporter's id), user (the reported
//	                             account's id), post (the posts' ids,
//	                             comma-separated, if any), reason;
//	                             a closed report is deleted, the audit log
//	                             keeps it (retwis)
//	instance:{rules}     hash    the instance's rules, set by the operator
//	                             (retwis admin rules): rule id -> JSON
//	                             (text, hint) (retwis)
//	instance:{rules}:next_id  string  the last rule id given (retwis)
//	instance:{announcements}  hash  the instance's announcements, posted
//	                             by the operator (retwis admin announce):
//	                             id -> JSON (text, starts, ends,
//	                             published, updated) (retwis)
//	instance:{announcements}:next_id  string  the last announcement id
//	                             given (retwis)
//	instance:{announcements}:reactions  hash  "<id>:<emoji>" -> how many
//	                             users reacted so (retwis)
//	announcements_read:{<id>}  set  the announcements user <id> dismissed
//	                             (retwis)
//	announcements_reacted:{<id>}  set  user <id>'s reactions to
//	                             announcements: "<id>:<emoji>" (retwis)
//	scheduled:{<id>}     hash    user <id>'s scheduled posts: id -> JSON
//	                             (the post's parameters, when it is due),
//	                             300 at most (retwis)
//	scheduled_due:{<nn>}  zset   shard nn (00 to 0f, by author) of the
//	                             scheduled posts' due times:
//	                             "<uid>:<id>" scored by the unix time;
//	                             maintenance publishes those due (retwis)
//	next_scheduled_id    string  the last scheduled post id given, when
//	                             no id generator numbers them (retwis)
//	activity:{instance}:<week>  hash  the week's activity (week: unix time
//	                             of its Monday 00:00 UTC): statuses,
//	                             registrations -> count; expires
//	                             after 13 weeks (retwis)
//	activity:{instance}:<week>:users  HyperLogLog  the ids of the users
//	                             active that week (logged in, signed up,
//	                             published): the logins; expires after 27 weeks (retwis)
//	activity:{instance}:total  hash  the same counts since counting began
//	                             (retwis)
//	blocks:{<id>}        zset    the users user <id> blocked, scored by the
//	                             unix time of the block (retwis)
//	mutes:{<id>}         zset    the users user <id> muted, likewise
//	                             (retwis)
//	notes:{<id>}         hash    user <id>'s private notes about accounts:
//	                             account id -> the note (retwis)
//	featured_tags:{<id>}
//	                     zset    the tags user <id> features on its
//	                             profile (folded), scored by the unix time
//	                             in microseconds they were featured (their
//	                             id); at most 10 (retwis)
//	blocked_by:{<id>}    zset    the users who blocked user <id>, scored
//	                             likewise, in <id>'s slot, so that what
//	                             <id> reads is filtered with keys of one
//	                             slot (retwis)
//	deleting:{<id>}      hash    the deletion of user <id>'s account, under
//	                             way: username, display_name, celebrity
//	                             ("1" if its posts were not fanned out),
//	                             posts and follows (how many when it
//	                             began), begun (unix time); while a batch of
//	                             posts is being deleted, batch (JSON: their
//	                             ids and fields, kept before anything of
//	                             them goes) and counted ("1" once their
//	                             tags were counted down). Deleted with the
//	                             account's last keys (retwis)
//	deleting:{<id>}:lease
//	                     string  the token of the runner carrying that
//	                             deletion on, expiring 30 s after its last
//	                             batch unless renewed (retwis)
//	deletions            zset    the accounts being deleted: user ids scored
//	                             by the unix time their deletion began, so
//	                             that maintenance resumes those whose runner
//	                             stopped (retwis)
//	device_key           string  the key of the device cookies' HMAC
//	                             (32 random bytes, base64url), made by the
//	                             first server that signs one (retwis)
//	login_failures:{<id>}
//	                     list    unix ms of the failed logins to user <id>
//	                             since the last login, newest first (20
//	                             kept), expiring a day after the last: they
//	                             slow the next attempts down (retwis)
//	login_notice:{<id>}  list    those failures once the owner logged in,
//	                             until the home page shows them; a week at
//	                             most (retwis)
//	ratelimit:{<subject>}
//	                     string  a rate limit's state for one subject
//	                             (login:addr:<address>, login:user:<folded
//	                             name>, login:device:<device id>,
//	                             signup:addr:<address>, post:<id>,
//	                             follow:<id>, action:<id> (favourites,
//	                             bookmarks, pins), report:<id>, api:token:<hash>,
//	                             api:addr:<address>): the generic
//	                             cell-rate algorithm's theoretical arrival
//	                             time, unix ms, expiring as it falls behind
//	                             the clock (retwis)
//	schema_version       string  layout version (8) written by Migrate
//	                             (retwis)
//	retwis:maintenance   string  the maintenance lock (MaintenanceLock), a
//	                             Redlock key on the lock servers (a single
//	                             Redis, or each of --lock-servers)
//	{retwis:maintenance}:fence
//	                     string  its fencing counter (retwis)
//	{<tag>}retwis:maintenance, {<tag>}retwis:maintenance:fence
//	                     string  the same on a Redis Cluster without
//	                             --lock-servers: one pair per tag, nine
//	                             tags naming hash slots spread over the
//	                             masters (redlock.NewOnCluster) (retwis)
//	retwis:worker:<n>    string  the lease of id worker number n (0–63) to
//	                             one server, a Redlock key like the above,
//	                             with its {retwis:worker:<n>}:fence, or
//	                             on a cluster {<tag>}retwis:worker:<n> and
//	                             {<tag>}retwis:worker:<n>:fence (retwis)
//
// Live events travel on sharded pub/sub channels (SPUBLISH), which hold
// nothing: stream:{<id>} (user <id>'s: the posts delivered to their home
// timeline, their notifications), stream:tag:{<folded>} (a tag's, in its
// slot) and stream:{public}; messages "update:<post id>",
// "status.update:<post id>:<unix ms of the edit>", "delete:<post id>",
// "notification:<unix ms>:<member of
// notifications:{<id>}>" (retwis); and stream:{revocations}, on which
// every server hears of access taken away: "revoke:<what>:<user
// id>:<id>", what being token (one token, by the hash Tokens holds it
// under), tokens (all of the account's), session (one, by its ID) or
// sessions (all but the one whose ID follows, if any) (retwis).
//
// Every command, script and transaction touches keys of one hash slot
// only, so the same code runs on a single server and on Redis Cluster.
// Operations that change keys in several slots are ordered so that a
// crash half-way leaves the data usable: a new user becomes visible only
// once the name is claimed (a crash before leaves an unreachable user
// hash); a post id is pushed on timelines only after the post hash exists;
// a session lives in the user's slot alone (a logout removes it there),
// so a user can always log in; user and post hashes
// are created only if absent, so an id handed out twice (a counter
// rolled back by a failover) never overwrites what exists; follows are written to
// both sets idempotently, so repeating one repairs it. An account's
// deletion begins with one script in the user's slot (its state written,
// the user hash and API tokens deleted: nobody gets in from then on);
// every step after it is safe to repeat, each batch of posts kept in the
// state before it is deleted, and maintenance resumes a deletion whose
// runner stopped. A post is
// published completely or taken back. Fanout is a durable job on the
// deliveries stream: a crash mid-delivery leaves the job to another
// worker, which resumes it.
package schema
