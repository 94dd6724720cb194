-- Never finishes and swallows errors: the limit must still end it.
while true do pcall(function() while true do end end) end
