/* `pmcfuse report`: hand-written interactive SVG plots. C writes the data in
 * plot units and the axes' data ranges; a short script in the page draws
 * numeric ticks (with units) and zooms and pans; hover text is SVG <title>. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report/report_impl.h"

#define UNITS 1000.0

void pmcfi_report_svg_axis_fit(struct pmcfi_report_svg_axis *a, double min, double max, int allow_log)
{
	pmcfi_report_svg_axis_fit_spread(a, min, NAN, max, allow_log);
}

void pmcfi_report_svg_axis_fit_spread(struct pmcfi_report_svg_axis *a, double min, double typical, double max,
				      int allow_log)
{
	if (!isfinite(min) || !isfinite(max)) {
		min = 0;
		max = 1;
	}
	/* log when the values span two decades, or when the largest is 20 times
	 * the typical value (a few outliers would flatten a linear axis) */
	a->log = allow_log && min > 0 && (max / min >= 100 || (typical > 0 && max / typical >= 20));
	if (a->log) {
		a->lo = min / 1.25;
		a->hi = max * 1.25;
		return;
	}
	double pad = (max / 2 - min / 2) * 0.08; /* halves: max - min may overflow */
	if (pad == 0)
		pad = fabs(max) > 0 ? fabs(max) * 0.05 : 0.5;
	a->lo = fmax(min - pad, -DBL_MAX);
	a->hi = fmin(max + pad, DBL_MAX);
	if (min >= 0 && a->lo < 0)
		a->lo = 0; /* counts and times: no negative axis */
}

static double to_units(const struct pmcfi_report_svg_axis *a, double v)
{
	double u;
	if (a->log)
		u = (log10(fmax(v, a->lo)) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		u = (v / 2 - a->lo / 2) / (a->hi / 2 - a->lo / 2);
	if (!(u >= -1))
		u = -1; /* far outside (or NaN): still a number SVG reads */
	if (u > 2)
		u = 2;
	return u * UNITS;
}

double pmcfi_report_svg_x(const struct pmcfi_report_svg_plot *s, double v) { return to_units(&s->x, v); }

double pmcfi_report_svg_y(const struct pmcfi_report_svg_plot *s, double v)
{
	return UNITS - to_units(&s->y, v);
}

static void axis_attrs(FILE *h, char c, const struct pmcfi_report_svg_axis *a)
{
	if (a->categorical) {
		fprintf(h, " data-%ccat=\"1\"", c);
		return;
	}
	fprintf(h, " data-%c0=\"%.17g\" data-%c1=\"%.17g\" data-%clog=\"%d\" data-%cunit=\"%s\"", c, a->lo, c,
		a->hi, c, a->log, c, a->unit ? a->unit : "count");
}

void pmcfi_report_svg_begin(struct pmcfi_report *r, struct pmcfi_report_svg_plot *s, unsigned w, unsigned h,
			    unsigned left, unsigned bottom, const char *title,
			    const struct pmcfi_report_svg_axis *x, const struct pmcfi_report_svg_axis *y,
			    const char *zoom)
{
	s->h = r->html;
	s->w = w;
	s->ht = h;
	s->l = left;
	s->t = 28;
	s->pw = w - left - 16;
	s->ph = h - s->t - bottom;
	s->x = *x;
	s->y = *y;
	FILE *f = s->h;
	fprintf(f,
		"<svg class=\"plot\" id=\"svg%u\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"data-zoom=\"%s\"",
		r->nsvg++, w, h, w, h, zoom ? zoom : "");
	axis_attrs(f, 'x', x);
	axis_attrs(f, 'y', y);
	fprintf(f, "><text class=\"tt\" x=\"%u\" y=\"17\" text-anchor=\"middle\">", w / 2);
	pmcfi_report_esc(f, title);
	fprintf(f,
		"</text>\n<g class=\"ax\"></g>\n<rect class=\"frame\" x=\"%u\" y=\"%u\" width=\"%u\" "
		"height=\"%u\"/>\n",
		s->l, s->t, s->pw, s->ph);
	if (x->label) {
		fprintf(f, "<text class=\"al\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">", s->l + s->pw / 2,
			x->categorical ? h - 4 : s->t + s->ph + 30);
		pmcfi_report_esc(f, x->label);
		fputs("</text>\n", f);
	}
	if (y->label) {
		fprintf(f,
			"<text class=\"al\" transform=\"translate(13 %u) rotate(-90)\" text-anchor=\"middle\">",
			s->t + s->ph / 2);
		pmcfi_report_esc(f, y->label);
		fputs("</text>\n", f);
	}
	fprintf(f,
		"<svg class=\"pa\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" viewBox=\"0 0 1000 1000\" "
		"preserveAspectRatio=\"none\">\n",
		s->l, s->t, s->pw, s->ph);
}

void pmcfi_report_svg_cat_label(struct pmcfi_report_svg_plot *s, char axis, double u, const char *text)
{
	FILE *f = s->h;
	if (axis == 'x') {
		double px = s->l + u / UNITS * s->pw;
		fprintf(f,
			"<text class=\"cl\" text-anchor=\"end\" transform=\"translate(%.1f %u) rotate(-35)\">",
			px, s->t + s->ph + 12);
	} else {
		double py = s->t + u / UNITS * s->ph;
		fprintf(f, "<text class=\"cl\" x=\"%u\" y=\"%.1f\" text-anchor=\"end\">", s->l - 5, py + 4);
	}
	pmcfi_report_esc(f, text);
	fputs("</text>\n", f);
}

void pmcfi_report_svg_data_end(struct pmcfi_report_svg_plot *s) { fputs("</svg>\n", s->h); }

void pmcfi_report_svg_legend(struct pmcfi_report_svg_plot *s, unsigned k, const char *color, const char *text)
{
	unsigned col = k % 4, row = k / 4;
	unsigned x = s->l + col * (s->pw / 4), y = s->t + s->ph + 50 + row * 15;
	fprintf(s->h,
		"<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/><text class=\"lg\" x=\"%u\" "
		"y=\"%u\">",
		x, y - 9, color, x + 14, y);
	pmcfi_report_esc(s->h, text);
	fputs("</text>\n", s->h);
}

void pmcfi_report_svg_end(struct pmcfi_report_svg_plot *s) { fputs("</svg>\n", s->h); }

const char pmcfi_report_svg_css[] =
	"svg.plot{background:#fff;border:1px solid #eee;margin-right:6px;font:11px system-ui,sans-serif;"
	"user-select:none;cursor:crosshair}\nsvg.plot .tt{font-size:13px;font-weight:600}"
	"svg.plot .al{font-size:12px}svg.plot .frame{fill:none;stroke:#999}"
	"svg.plot .gr{stroke:#e4e4e4}svg.plot .ax text{fill:#333}svg.plot .cl{font-size:11px}\n"
	"svg.plot .pa *{vector-effect:non-scaling-stroke}svg.plot .pt{stroke-linecap:round}\n"
	"svg.plot .pa :hover{stroke:#000!important;stroke-opacity:1!important}\n";

/* Ticks, zoom and pan for every svg.plot; sets data-svgs / data-svgs-ok on
 * <html> (plots whose data area has content and whose numeric axes got
 * ticks), which tests/e2e/report.sh reads from Chromium's DOM. */
const char pmcfi_report_svg_script[] =
	"<script>\n"
	"function pmTicks(lo,hi,lg,n){var t=[],L=Math.log10;n=Math.max(2,n);if(lg){var a=Math.floor(L(lo)),"
	"b=Math.ceil(L(hi)),m=b-a<=2?[1,2,5]:[1],st=Math.max(1,Math.ceil((b-a)/n));for(var e=a;e<=b;e+=st)"
	"m.forEach(function(k){var v=k*Math.pow(10,e);if(v>=lo*0.9999&&v<=hi*1.0001)t.push(v);});t.step=0;"
	"if(t.length<2)return pmTicks(lo,hi,0,n);return t;}var raw=(hi-lo)/n,p=Math.pow(10,Math.floor(L(raw))),"
	"f=raw/p,s=(f<1.5?1:f<3.5?2:f<7.5?5:10)*p;for(var v=Math.ceil(lo/s)*s;v<=hi+s*1e-9;v+=s)"
	"t.push(Math.abs(v)<s*1e-9?0:v);t.step=s;return t;}\n"
	"function pmScale(t,unit){var m=0;t.forEach(function(v){m=Math.max(m,Math.abs(v));});"
	"var U=unit=='ns'?[[1e9,' s'],[1e6,' ms'],[1e3,' \\u00b5s'],[1,' ns']]:[[1e9,' G'],[1e6,' M'],"
	"[1e3,' k'],[1,'']];for(var i=0;i<U.length-1;i++)if(m>=U[i][0])return U[i];return U[U.length-1];}\n"
	"function pmFmt(v,sc,step){if(v==0)return '0';var x=v/sc[0];if(Math.abs(x)<1e-3)return x.toExponential(0)+sc[1];"
	"if(!step)return +x.toPrecision(3)+sc[1];"
	"var d=Math.max(0,Math.min(8,-Math.floor(Math.log10(step/sc[0])+1e-9)));return x.toFixed(d)+sc[1];}\n"
	"function pmAxes(s){var pa=s.querySelector('svg.pa'),g=s.querySelector('g.ax'),vb=pa.viewBox.baseVal,"
	"L=+pa.getAttribute('x'),T=+pa.getAttribute('y'),W=+pa.getAttribute('width'),"
	"H=+pa.getAttribute('height'),d=s.dataset,h='',G=Math.log10;['x','y'].forEach(function(ax){"
	"if(d[ax+'cat'])return;var lo=+d[ax+'0'],hi=+d[ax+'1'],lg=d[ax+'log']=='1',u0,u1;"
	"if(ax=='x'){u0=vb.x;u1=vb.x+vb.width;}else{u0=1000-vb.y-vb.height;u1=1000-vb.y;}"
	"var val=function(u){return lg?Math.pow(10,G(lo)+u/1000*(G(hi)-G(lo))):lo+u/1000*(hi-lo);},"
	"pos=function(v){return lg?(G(v)-G(lo))/(G(hi)-G(lo))*1000:(v-lo)/(hi-lo)*1000;},"
	"t=pmTicks(val(u0),val(u1),lg,ax=='x'?W/85:H/40),sc=pmScale(t,d[ax+'unit']);"
	"t.forEach(function(v){var u=(pos(v)-u0)/(u1-u0),q=pmFmt(v,sc,t.step);if(ax=='x'){var x=L+u*W;"
	"h+='<line class=\"gr\" x1=\"'+x+'\" x2=\"'+x+'\" y1=\"'+T+'\" y2=\"'+(T+H)+'\"/><text x=\"'+x+"
	"'\" y=\"'+(T+H+13)+'\" text-anchor=\"middle\">'+q+'</text>';}else{var y=T+H-u*H;"
	"h+='<line class=\"gr\" x1=\"'+L+'\" x2=\"'+(L+W)+'\" y1=\"'+y+'\" y2=\"'+y+'\"/><text x=\"'+(L-4)+"
	"'\" y=\"'+(y+4)+'\" text-anchor=\"end\">'+q+'</text>';}});});g.innerHTML=h;}\n"
	"function pmZoom(s){var pa=s.querySelector('svg.pa'),z=s.dataset.zoom,v=[0,0,1000,1000],dr=null;"
	"function set(){for(var i=0;i<2;i++){v[i+2]=Math.min(1000,Math.max(0.001,v[i+2]));"
	"v[i]=Math.max(0,Math.min(1000-v[i+2],v[i]));}pa.setAttribute('viewBox',v.join(' '));pmAxes(s);}"
	"if(z){s.addEventListener('wheel',function(e){e.preventDefault();var r=pa.getBoundingClientRect(),"
	"k=e.deltaY<0?0.8:1.25,f=[(e.clientX-r.left)/r.width,(e.clientY-r.top)/r.height];"
	"for(var i=0;i<2;i++)if(z.indexOf('xy'[i])>=0){var nw=v[i+2]*k;v[i]+=(v[i+2]-nw)*Math.min(1,"
	"Math.max(0,f[i]));v[i+2]=nw;}set();},{passive:false});s.addEventListener('mousedown',"
	"function(e){dr=[e.clientX,e.clientY,v[0],v[1]];});window.addEventListener('mouseup',function(){"
	"dr=null;});s.addEventListener('mousemove',function(e){if(!dr)return;var r=pa.getBoundingClientRect();"
	"if(z.indexOf('x')>=0)v[0]=dr[2]-(e.clientX-dr[0])/r.width*v[2];if(z.indexOf('y')>=0)"
	"v[1]=dr[3]-(e.clientY-dr[1])/r.height*v[3];set();});s.addEventListener('dblclick',function(){"
	"v=[0,0,1000,1000];set();});}set();}\n"
	"window.addEventListener('load',function(){var S=document.querySelectorAll('svg.plot'),ok=0;"
	"for(var i=0;i<S.length;i++){try{pmZoom(S[i]);var d=S[i].dataset,need=(d.xcat?0:1)+(d.ycat?0:1);"
	"if(S[i].querySelector('svg.pa').childElementCount>0&&S[i].querySelectorAll('g.ax text').length>="
	"2*need)ok++;}catch(e){}}var h=document.documentElement;h.setAttribute('data-svgs',S.length);"
	"h.setAttribute('data-svgs-ok',ok);});\n"
	"</script>\n";
