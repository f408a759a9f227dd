package hitltest

import "html/template"

var pageTemplate = template.Must(template.New("review").Funcs(template.FuncMap{
	"add": func(a, b int) int { return a + b },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">
<title>{{.Prompt}}</title>
<style>
:root{--bg:#fff;--fg:#1a1a1a;--muted:#5c5c5c;--line:#d6d6d6;--card:#f6f6f6;--accent:#1f5fbf;--danger:#b3261e;--ok:#1e7a3c}
@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#ececec;--muted:#a8a8a8;--line:#3a3a3a;--card:#1e1e1e;--accent:#7fb0ff;--danger:#ff8a80;--ok:#7ed69a}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:42rem;margin:0 auto;padding:1.25rem}h1{font-size:1.35rem;line-height:1.3;margin:.25rem 0 .5rem}
.meta{color:var(--muted);font-size:.9rem;margin:0 0 1rem}.badge{display:inline-block;border:1px solid var(--line);border-radius:1rem;padding:0 .6rem;margin-right:.4rem}
section,.card{background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:.9rem 1rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.35rem 1rem;margin:0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:.85rem}
label{display:block;font-weight:600;margin:.2rem 0}.hint{color:var(--muted);font-size:.9rem;font-weight:400}
input[type=text],input[type=number],input[type=date],input[type=email],input[type=url],input[type=password],select,textarea{width:100%;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:.4rem;padding:.55rem .6rem}
input[type=range]{width:100%}textarea{min-height:5rem}
.field{margin:0 0 1rem}.check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;padding:.5rem 0}.check input{margin-top:.3rem;width:1.15rem;height:1.15rem}
.option{display:flex;gap:.7rem;align-items:flex-start;border:1px solid var(--line);border-radius:.6rem;padding:.75rem;margin:0 0 .6rem;background:var(--bg);font-weight:400;cursor:pointer}
.option input{margin-top:.3rem;width:1.15rem;height:1.15rem}.option strong{display:block}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin-top:1rem}
button{font:inherit;font-weight:600;border-radius:.5rem;padding:.65rem 1.1rem;border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer;min-height:2.75rem}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--bg)}button.danger{color:var(--danger);border-color:var(--danger)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.error{color:var(--danger);font-weight:600;margin:.25rem 0 0}.invalid input,.invalid select,.invalid textarea{border-color:var(--danger)}
.notice{border-left:4px solid var(--accent)}.notice.bad{border-left-color:var(--danger)}.notice.good{border-left-color:var(--ok)}
.progress{color:var(--muted);font-size:.9rem;margin:0 0 .5rem}[hidden]{display:none!important}
details{margin-top:1.5rem}details summary{cursor:pointer;color:var(--muted)}dd ul{margin:0;padding-left:1.1rem}
</style></head>
<body><main>
<p class="meta"><span class="badge">{{.Type}}</span>Case {{.ID}}{{if not .Ended}} · expires {{.ExpiresAt}}{{end}}</p>
<h1>{{.Prompt}}</h1>
{{if .AlreadyAnswered}}<section class="notice bad" role="alert"><strong>This case was already answered.</strong> Your second answer was not recorded; the first one stands.</section>{{end}}
{{if .Ended}}
  {{if .Expired}}<section class="notice bad" role="status"><strong>This review has expired.</strong> No answer was given in time{{if .DefaultAction}}; the default action, <strong>{{.DefaultAction}}</strong>, applies{{end}}.</section>
  {{else if eq .State "cancelled"}}<section class="notice bad" role="status"><strong>This review was cancelled</strong> by the service. There is nothing left to answer.</section>
  {{else}}<section class="notice good" role="status"><strong>Answered: {{.Answer}}</strong>.{{if not .AlreadyAnswered}} Thank you; the agent has been told.{{end}}
  {{if .AnswerData}}<pre>{{.AnswerData}}</pre>{{end}}</section>{{end}}
{{else}}
<form method="post" novalidate id="review">
{{if .Error}}<section class="notice bad" role="alert">{{.Error}}</section>{{end}}

{{if eq .Type "approval"}}
  <section aria-label="What to approve">{{if .Artifact}}<dl>{{range .Artifact}}<dt>{{.Key}}</dt><dd>{{template "value" .}}</dd>{{end}}</dl>{{else}}<p>Nothing to show.</p>{{end}}</section>
  <div class="field" id="field-feedback"><label for="feedback">Feedback <span class="hint">(required to request edits)</span></label>
  <textarea id="feedback" name="feedback">{{.Feedback}}</textarea>
  {{if .FeedbackError}}<p class="error" role="alert">{{.FeedbackError}}</p>{{end}}</div>
  <div class="actions"><button class="primary" name="action" value="approve">Approve</button><button name="action" value="edit">Request edits</button><button class="danger" name="action" value="reject">Reject</button></div>

{{else if eq .Type "selection"}}
  <fieldset class="card"><legend>{{if .Multi}}Choose one or more{{else}}Choose one{{end}}</legend>
  {{range .Options}}<label class="option"><input type="{{if $.Multi}}checkbox{{else}}radio{{end}}" name="selected" value="{{.ID}}"{{if .Checked}} checked{{end}}><span><strong>{{.Label}}</strong>{{if .Description}}<span class="hint">{{.Description}}</span>{{end}}</span></label>{{end}}
  {{if .SelectedError}}<p class="error" role="alert">{{.SelectedError}}</p>{{end}}</fieldset>
  <div class="field"><label for="note">Note <span class="hint">(optional)</span></label><textarea id="note" name="note">{{.Note}}</textarea></div>
  <div class="actions"><button class="primary" name="action" value="select">Submit selection</button></div>

{{else if eq .Type "confirmation"}}
  {{if .Irreversible}}<section class="notice bad" role="note"><strong>This cannot be undone.</strong></section>{{end}}
  <fieldset class="card"><legend>What will happen</legend>
  {{range .Items}}<label class="check"><input type="checkbox" name="item" value="{{.ID}}"{{if .Checked}} checked{{end}}><span>{{.Label}}{{if .Description}} <span class="hint">{{.Description}}</span>{{end}}</span></label>{{end}}</fieldset>
  <div class="field"><label for="note">Note <span class="hint">(optional)</span></label><textarea id="note" name="note">{{.Note}}</textarea></div>
  <div class="actions"><button class="primary" name="action" value="confirm">Confirm</button><button class="danger" name="action" value="cancel">Cancel</button></div>

{{else if eq .Type "escalation"}}
  <section class="notice bad" aria-label="What went wrong">{{if .Failure}}<dl>{{range .Failure}}<dt>{{.Key}}</dt><dd>{{template "value" .}}</dd>{{end}}</dl>{{else}}<p>The agent hit an error it cannot resolve alone.</p>{{end}}</section>
  {{if .Params}}<fieldset class="card"><legend>Parameters for a retry</legend>{{range .Params}}<div class="field"><label for="param-{{.Key}}">{{.Key}}</label><input type="text" id="param-{{.Key}}" name="param.{{.Key}}" value="{{.Value}}"></div>{{end}}</fieldset>{{end}}
  <div class="field"><label for="reason">Reason <span class="hint">(optional)</span></label><textarea id="reason" name="reason">{{.Reason}}</textarea></div>
  <div class="actions"><button class="primary" name="action" value="retry">Retry</button><button name="action" value="skip">Skip</button><button class="danger" name="action" value="abort">Abort</button></div>

{{else}}
  {{$n := len .Steps}}
  {{range $i, $st := .Steps}}
  <fieldset class="card step" data-step="{{add $i 1}}" data-steps="{{$n}}">
    {{if gt $n 1}}<p class="progress">Step {{add $i 1}} of {{$n}}</p>{{end}}
    {{if $st.Title}}<legend><strong>{{$st.Title}}</strong></legend>{{end}}
    {{if $st.Description}}<p class="hint">{{$st.Description}}</p>{{end}}
    {{range $st.Fields}}
    <div class="field{{if .Error}} invalid{{end}}" id="field-{{.Key}}"{{if .CondField}} data-cond-field="{{.CondField}}" data-cond-op="{{.CondOp}}" data-cond-value="{{.CondValue}}"{{end}}>
      {{if eq (print .Type) "boolean"}}
        <input type="hidden" name="shown.{{.Key}}" value="1">
        <label class="check"><input type="checkbox" id="{{.Key}}" name="{{.Key}}" value="true"{{if .BoolValue}} checked{{end}}><span>{{.Label}}{{if .Required}} *{{end}}</span></label>
      {{else}}
        <label for="{{.Key}}">{{.Label}}{{if .Required}} <span aria-hidden="true">*</span>{{end}}</label>
        {{if eq (print .Type) "textarea"}}<textarea id="{{.Key}}" name="{{.Key}}"{{if .Placeholder}} placeholder="{{.Placeholder}}"{{end}}{{if .Required}} required aria-required="true"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}>{{.Value}}</textarea>
        {{else if eq (print .Type) "select"}}<select id="{{.Key}}" name="{{.Key}}"{{if .Required}} required aria-required="true"{{end}}><option value="">Choose…</option>{{$f := .}}{{range .Options}}<option value="{{.Value}}"{{if eq $f.Value .Value}} selected{{end}}>{{.Label}}</option>{{end}}</select>
        {{else if eq (print .Type) "multiselect"}}{{$f := .}}<div role="group" aria-labelledby="{{.Key}}">{{range .Options}}<label class="check"><input type="checkbox" name="{{$f.Key}}" value="{{.Value}}"{{if index $f.Checked .Value}} checked{{end}}><span>{{.Label}}</span></label>{{end}}</div>
        {{else}}<input type="{{.Input}}" id="{{.Key}}" name="{{.Key}}" value="{{.Value}}"{{if .Placeholder}} placeholder="{{.Placeholder}}"{{end}}{{if .Required}} required aria-required="true"{{end}}{{if .Min}} min="{{.Min}}"{{end}}{{if .Max}} max="{{.Max}}"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}{{if eq .Input "number"}} step="any"{{end}}{{if .Sensitive}} autocomplete="off"{{end}}>{{end}}
      {{end}}
      {{if .Hint}}<p class="hint">{{.Hint}}</p>{{end}}
      {{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
    </div>
    {{end}}
    {{if gt $n 1}}<div class="actions nav">{{if gt $i 0}}<button type="button" data-go="-1">Back</button>{{end}}{{if lt (add $i 1) $n}}<button type="button" class="primary" data-go="1">Next</button>{{end}}</div>{{end}}
  </fieldset>
  {{else}}
  <div class="field"><label for="note">Your answer</label><textarea id="note" name="note">{{.Note}}</textarea></div>
  {{end}}
  <div class="actions" id="submit-row"><button class="primary" name="action" value="submit">Submit</button></div>
  <input type="hidden" id="first-error-step" value="{{.FirstErrorStep}}">
{{end}}
</form>
{{end}}
{{if .Context}}<details><summary>Everything the agent sent</summary><pre>{{.Context}}</pre></details>{{end}}
</main>
<script>
(function(){
  var form=document.getElementById('review'); if(!form) return;
  // Conditional fields (§10.3): hidden and left out of the answer unless their condition holds.
  function valueOf(key){
    var els=form.querySelectorAll('[name="'+key+'"]'); if(!els.length) return undefined;
    if(els[0].type==='checkbox'&&els.length===1) return els[0].checked;
    if(els[0].type==='checkbox'){var out=[];els.forEach(function(e){if(e.checked)out.push(e.value)});return out}
    var v=els[0].value; if(els[0].type==='number'||els[0].type==='range'){return v===''?undefined:Number(v)} return v;
  }
  function holds(op,got,want){
    switch(op){case 'eq':return got===want;case 'neq':return got!==want;
      case 'in':return Array.isArray(want)&&want.indexOf(got)>=0;case 'gt':return got>want;case 'lt':return got<want}
    return true;
  }
  function conditions(){
    form.querySelectorAll('[data-cond-field]').forEach(function(el){
      var want; try{want=JSON.parse(el.dataset.condValue)}catch(e){want=el.dataset.condValue}
      var show=holds(el.dataset.condOp,valueOf(el.dataset.condField),want);
      el.hidden=!show; el.querySelectorAll('input,select,textarea').forEach(function(i){i.disabled=!show});
    });
  }
  form.addEventListener('input',conditions); form.addEventListener('change',conditions); conditions();
  // Multi-step forms: one step at a time; each step reached is reported as progress.
  var steps=form.querySelectorAll('.step'); if(steps.length<2) return;
  var submit=document.getElementById('submit-row'), at=Number(document.getElementById('first-error-step').value)||0;
  function progress(){
    var body=new URLSearchParams({step:String(at+1),total:String(steps.length)});
    fetch(location.pathname+'/progress'+location.search,{method:'POST',body:body}).catch(function(){});
  }
  function show(){steps.forEach(function(s,i){s.hidden=i!==at}); submit.hidden=at!==steps.length-1;
    var f=steps[at].querySelector('input:not([type=hidden]),select,textarea'); if(f) f.focus();}
  form.querySelectorAll('[data-go]').forEach(function(b){b.addEventListener('click',function(){
    at=Math.max(0,Math.min(steps.length-1,at+Number(b.dataset.go))); show(); progress();})});
  show();
})();
</script>
</body></html>
{{define "value"}}{{if .List}}<ul>{{range .List}}<li>{{.}}</li>{{end}}</ul>{{else if .Block}}<pre>{{.Value}}</pre>{{else}}{{.Value}}{{end}}{{end}}`))
