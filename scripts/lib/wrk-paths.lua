-- wrk script shared by the load scripts: requests the paths listed in the file $PATHS, one a
-- line, each wrk thread taking every other path in turn (so two threads cover the list once
-- before any path repeats).
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local n = 0
function request()
    local index = (id + n * 2) % #paths + 1
    n = n + 1
    return wrk.format("GET", paths[index])
end
