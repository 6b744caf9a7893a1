package blk

import (
	"math"
	"math/rand/v2"
)

// genOptions shapes a generated tree.
type genOptions struct {
	blocks    int  // total sub-blocks to create
	params    int  // params per block (on average)
	oddNames  bool // include names that need quoting or are not UTF-8
	nanBits   bool // allow NaNs other than the quiet NaN
	maxDepth  int
	bigBlocks bool // one block with more than 255 params and blocks
}

var genNames = []string{"a", "b", "speed", "mass", "name", "x.y", "route_count:u32", "has space", "dup"}

var oddNames = []string{"", "quo\"te", "tick'", "tilde~", "\xff\xfe", "ünï", "semi;colon", "brace{"}

func genName(r *rand.Rand, o genOptions) string {
	if o.oddNames && r.IntN(6) == 0 {
		return oddNames[r.IntN(len(oddNames))]
	}
	return genNames[r.IntN(len(genNames))]
}

var genStrings = []string{"", "hello", "multi\nline", "tab\there", "q\"uote", "both\"'", "both\"'\n", "~tilde~", "cr\r\nlf", "ünïcode", "a", "speed"}

func genFloat(r *rand.Rand, o genOptions) float32 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return float32(math.Inf(1 - 2*r.IntN(2)))
	case 3:
		if o.nanBits {
			return math.Float32frombits(0x7f800001 | r.Uint32()&0x807fffff)
		}
		return math.Float32frombits(quietNaN)
	case 4:
		return math.Float32frombits(r.Uint32() &^ 0x7f800000) // subnormal or zero
	}
	f := math.Float32frombits(r.Uint32())
	if f != f || math.IsInf(float64(f), 0) {
		return 1.5
	}
	return f
}

func genValue(r *rand.Rand, o genOptions) Value {
	t := Type(1 + r.IntN(13))
	v := Value{typ: t}
	switch t {
	case TypeString:
		s := genStrings[r.IntN(len(genStrings))]
		if o.oddNames && r.IntN(5) == 0 {
			s = "\xff" + s
		}
		return Str(s)
	case TypeBool:
		return Bool(r.IntN(2) == 1)
	case TypeReal, TypePoint2, TypePoint3, TypePoint4, TypeMatrix:
		var w [12]uint32
		for i := 0; i < typeInfo[t].words; i++ {
			w[i] = math.Float32bits(genFloat(r, o))
		}
		return makeValue(t, &w)
	default:
		for i := 0; i < typeInfo[t].words; i++ {
			v.w[i] = r.Uint32()
		}
	}
	return v
}

// genTree returns a pseudo-random tree using every type.
func genTree(seed uint64, o genOptions) *Block {
	r := rand.New(rand.NewPCG(seed, 1))
	root := &Block{}
	all := []*Block{root}
	depth := map[*Block]int{root: 0}
	fill := func(b *Block, n int) {
		for i := 0; i < n; i++ {
			b.Add(genName(r, o), genValue(r, o))
		}
	}
	fill(root, r.IntN(o.params+1))
	for i := 0; i < o.blocks; i++ {
		parent := all[r.IntN(len(all))]
		if depth[parent] >= o.maxDepth {
			parent = root
		}
		c := parent.AddBlock(genName(r, o))
		depth[c] = depth[parent] + 1
		fill(c, r.IntN(2*o.params+1))
		all = append(all, c)
	}
	if o.bigBlocks {
		big := root.AddBlock("big")
		fill(big, 300)
		for i := 0; i < 300; i++ {
			big.AddBlock("child").Add("i", Int(int32(i)))
		}
	}
	return root
}
