package bench

// SuspendFigureOf exposes suspendFigure to the tests.
var SuspendFigureOf = suspendFigure
