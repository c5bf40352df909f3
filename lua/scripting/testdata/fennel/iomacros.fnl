(fn reader [] (io.open "main.fnl"))
{:reader reader}
