package pipeline

import (
	"fmt"
	"io"
	"sort"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/judge"
)

// judgeView is the set the comparison scores on: with the config's judge
// ([judge], the base commit's when its policy rules) calibrated against
// people, and its grades gold where no person graded when th (the policy
// that judges) lets them count. Without a [judge] table, the set itself.
func judgeView(cfg *config.Config, th gate.Thresholds, set *gate.Set) (*gate.Set, *judged, error) {
	if cfg == nil || cfg.Judge == nil {
		return set, nil, nil
	}
	id, err := judge.Identify(cfg)
	if err != nil {
		return nil, nil, gate.AtStage(gate.StageConfig, "", err)
	}
	view, r, applied := judge.Apply(set, id, th)
	return view, &judged{report: r, applied: applied}, nil
}

// judgedCompare is compare on the set the comparison scores on
// (judgeView), the judge's report attached. When the judge's grades
// counted, compare runs again on the set without them (its warnings
// unsaid: the first run said them) and the report records the verdict
// that comparison gives, so a report can say whether the verdict rests
// on the judge.
func judgedCompare(e *Env, cfg *config.Config, th gate.Thresholds, set *gate.Set, compare func(*Env, *gate.Set) (*gate.Comparison, error)) (*gate.Comparison, error) {
	view, jd, err := judgeView(cfg, th, set)
	if err != nil {
		return nil, err
	}
	cmp, err := compare(e, view)
	if err != nil || jd == nil {
		return cmp, err
	}
	jd.attach(cmp)
	if jd.report.Used {
		quiet := *e
		quiet.Stderr = io.Discard
		alone, err := compare(&quiet, set)
		if err != nil {
			return nil, err
		}
		jd.report.VerdictWithout = alone.Verdict
		for _, docs := range jd.applied {
			jd.report.GradesUsed += len(docs)
		}
	}
	return cmp, nil
}

// judged is what judgeView decided, for the comparison it made.
type judged struct {
	report  *gate.JudgeReport
	applied map[string][]string
}

// attach puts the judge's report on the comparison: the documents in
// either side's top k that rest on the judge alone, and its health lines.
func (j *judged) attach(cmp *gate.Comparison) {
	if j == nil {
		return
	}
	if j.report.Used {
		var runs [2][]gate.Result
		for _, p := range cmp.Queries {
			runs[0] = append(runs[0], docsResult(p.Query.ID, p.Base.Docs))
			runs[1] = append(runs[1], docsResult(p.Query.ID, p.Head.Docs))
		}
		j.report.DocumentsUsed = judge.CountUsed(j.applied, cmp.Depth.Context, runs[0], runs[1])
	}
	cmp.Judge = j.report
	cmp.Health = append(cmp.Health, judge.Health(j.report, true)...)
}

// docsResult is a ranking of distinct documents as a result.
func docsResult(id string, docs []string) gate.Result {
	r := gate.Result{ID: id}
	for _, d := range docs {
		r.Hits = append(r.Hits, gate.Hit{Doc: d})
	}
	return r
}

// judgeCalibration writes validate's "judge:" lines: the config's judge
// calibrated against people and decided by the config's policy; without
// a config, every judge the set holds grades of, by its fingerprint.
func judgeCalibration(cfg *config.Config, s *gate.Set, out io.Writer) error {
	var ids []judge.Identity
	th := gate.DefaultThresholds()
	if cfg != nil && cfg.Judge != nil {
		id, err := judge.Identify(cfg)
		if err != nil {
			return err
		}
		ids, th = append(ids, id), cfg.Thresholds
	} else if cfg == nil {
		seen := map[[2]string]bool{}
		for _, q := range s.Queries {
			for name, rec := range q.Judges {
				id := judge.Identity{Name: name, Fingerprint: rec.Fingerprint}
				if k := [2]string{name, rec.Fingerprint}; !seen[k] {
					seen[k] = true
					ids = append(ids, id)
				}
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i].Name+ids[i].Fingerprint < ids[j].Name+ids[j].Fingerprint })
	}
	for _, id := range ids {
		r := judge.Calibrate(s, id)
		judge.Decide(r, th)
		for _, line := range judge.Health(r, false) {
			fmt.Fprintf(out, "judge: %s\n", line)
		}
	}
	return nil
}
