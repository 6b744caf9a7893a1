package sign

// MatchPatternList is matchPatternList, for the tests.
var MatchPatternList = matchPatternList
