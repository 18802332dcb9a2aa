// fixture: names no case
